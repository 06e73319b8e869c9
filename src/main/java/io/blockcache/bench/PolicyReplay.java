package io.blockcache.bench;

import io.blockcache.bench.policy.CachePolicy;

/**
 * Replays a {@link BlockTrace} through a classic {@link CachePolicy}, block by block: reads and writes both
 * reference their blocks (a write allocates, as the engine's write-through copy does); only reads are counted.
 * A read request misses if any of its blocks missed; its missed bytes are its missed blocks.
 *
 * <p>Thread rule: the caller's thread.
 */
final class PolicyReplay {
    /** Misses of one replay: read requests and read bytes, in all and missed. */
    record Result(long readRequests, long readRequestMisses, long readBytes, long readMissBytes) {
        double requestMissRatio() {
            return readRequests == 0 ? 0 : readRequestMisses / (double) readRequests;
        }

        double byteMissRatio() {
            return readBytes == 0 ? 0 : readMissBytes / (double) readBytes;
        }
    }

    private PolicyReplay() {
    }

    static Result run(BlockTrace trace, CachePolicy policy) {
        long requests = 0;
        long requestMisses = 0;
        long bytes = 0;
        long missBytes = 0;
        for (int r = 0; r < trace.requests(); r++) {
            long start = trace.startBlock(r);
            int count = trace.blockCount(r);
            int missed = 0;
            for (int b = 0; b < count; b++) {
                if (!policy.reference(start + b)) {
                    missed++;
                }
            }
            if (!trace.isWrite(r)) {
                requests++;
                bytes += (long) count * BlockTrace.BLOCK_BYTES;
                missBytes += (long) missed * BlockTrace.BLOCK_BYTES;
                if (missed > 0) {
                    requestMisses++;
                }
            }
        }
        return new Result(requests, requestMisses, bytes, missBytes);
    }
}

package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;

/**
 * Writes a set of extents through a device (a volume, or a raw disk for the ideal sweep) in the set's write order,
 * keeping up to {@code depth} writes in flight, and runs the loop until all are done. Contents are slices of one
 * seeded buffer: writeback verifies checksums, not patterns, so sharing the bytes costs nothing in realism.
 */
final class FrontEndWriter {
    /** Largest extent any experiment writes: the sweep's 1 MiB. */
    static final int EXTENT_BYTES_MAX = 1 << 20;
    private static final byte[] PATTERN = pattern();

    private FrontEndWriter() {
    }

    private static byte[] pattern() {
        byte[] bytes = new byte[EXTENT_BYTES_MAX];
        new io.blockcache.loop.Prng(0x5eed).nextBytes(bytes);
        return bytes;
    }

    /** A read-only view of {@code lengthBytes} of the shared pattern. */
    static ByteBuffer data(int lengthBytes) {
        return ByteBuffer.wrap(PATTERN, 0, lengthBytes).slice().asReadOnlyBuffer();
    }

    /**
     * Writes every extent of {@code set} to {@code device} at {@code offsetBytes} + the extent's start, in write
     * order, {@code depth} at a time; returns when the last write completed.
     */
    static void writeAll(io.blockcache.loop.SimLoop loop, BlockDevice device, long offsetBytes, Extents set,
                         int depth) {
        writeAll(loop, device, offsetBytes, set, depth, 0);
    }

    /**
     * As {@link #writeAll(io.blockcache.loop.SimLoop, BlockDevice, long, Extents, int)}, with a FLUSH submitted
     * after every {@code flushEveryWrites}-th write's submission (0: none), as an application that flushes
     * periodically; returns when the writes and the flushes completed.
     */
    static void writeAll(io.blockcache.loop.SimLoop loop, BlockDevice device, long offsetBytes, Extents set,
                         int depth, int flushEveryWrites) {
        int[] next = {0};
        int[] done = {0};
        int[] flushesLeft = {0};
        int count = set.count();
        Runnable[] issue = new Runnable[1];
        issue[0] = () -> {
            int i = set.writeOrder()[next[0]++];
            if (flushEveryWrites > 0 && next[0] % flushEveryWrites == 0) {
                flushesLeft[0]++;
                loop.execute(() -> device.flush(result -> {
                    Checks.check(result.ok(), "flush failed: %s", result);
                    flushesLeft[0]--;
                }));
            }
            device.write(offsetBytes + set.startBytes()[i], data(set.lengthBytes()[i]), false, result -> {
                Checks.check(result.ok(), "write failed: %s", result);
                done[0]++;
                if (next[0] < count) {
                    issue[0].run();
                }
            });
        };
        for (int k = 0; k < Math.min(depth, count); k++) {
            issue[0].run();
        }
        BenchRig.runUntil(loop, () -> done[0] == count && flushesLeft[0] == 0);
    }
}

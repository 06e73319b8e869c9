package io.blockcache.bench.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * S3-FIFO ({@link S3FifoPolicy}) built from two {@link BucketLog}s, as a log-structured cache could run it: a small
 * log of 10 % of the buckets takes every miss (or the main log, if the ghost remembers the block); when a small
 * bucket is reused, its blocks hit at least twice are rewritten into the main log and the others go to the ghost;
 * when a main bucket is reused, its blocks with a count above 0 are rewritten at its head with one less. The same
 * decisions per block as S3-FIFO, made a bucket at a time, with the partition between the logs fixed; every
 * move and reinsertion is a cache write ({@link #rewrittenBlocks}), the price a log pays for them.
 *
 * <p>Thread rule: one thread.
 */
public final class S3FifoLogPolicy implements LogPolicy {
    private static final int MOVE_TO_MAIN_THRESHOLD = 2;
    private static final int FREQUENCY_MAX = 3;

    private final Map<Long, Integer> where = new HashMap<>();
    private final LruList ghost = new LruList();
    private final int ghostMax;
    private final BucketLog small;
    private final BucketLog main;
    private long movedBlocks;

    /** An S3-FIFO log of {@code capacityBlocks} (whole buckets, at least one small and one main). */
    public S3FifoLogPolicy(int capacityBlocks) {
        Policies.checkCapacity(capacityBlocks);
        int buckets = Math.max(2, capacityBlocks / BucketLog.BLOCKS_PER_BUCKET);
        int smallBuckets = Math.max(1, buckets / 10);
        this.ghostMax = Math.max(1, capacityBlocks * 9 / 10);
        this.main = new BucketLog(buckets - smallBuckets, where, 1, (block, count) -> count > 0 ? count - 1 : -1);
        this.small = new BucketLog(smallBuckets, where, 0, this::leaveSmall);
    }

    private int leaveSmall(long block, int count) {
        if (count >= MOVE_TO_MAIN_THRESHOLD) {
            movedBlocks++;
            main.append(block, 0);
        } else {
            ghost.addNewest(block);
            if (ghost.size() > ghostMax) {
                ghost.removeOldest();
            }
        }
        return -1;
    }

    @Override
    public boolean reference(long block) {
        Integer code = where.get(block);
        if (code != null) {
            (small.owns(code) ? small : main).hit(code, FREQUENCY_MAX);
            return true;
        }
        (ghost.remove(block) ? main : small).append(block, 0);
        return false;
    }

    @Override
    public long rewrittenBlocks() {
        return movedBlocks + main.rewrittenBlocks();
    }

    @Override
    public String name() {
        return "S3-FIFO-log";
    }
}

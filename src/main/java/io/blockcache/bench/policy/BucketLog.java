package io.blockcache.bench.policy;

import java.util.Arrays;
import java.util.Map;

/**
 * A log of fixed-size buckets of 4 KiB blocks, filled in order, evicted a whole bucket at a time (oldest first),
 * as the engine's cache space is: the building block of {@link BucketLogPolicy} and {@link S3FifoLogPolicy}. Each
 * block carries a small counter (hits since it was written, capped by the caller). When the bucket at the head must
 * be reused, each of its blocks is offered to the {@link Evicted} handler, which says whether the block is written
 * again at the head (a reinsertion: one cache write, counted) or leaves this log.
 *
 * <p>Thread rule: one thread.
 */
final class BucketLog {
    /** Blocks per bucket: the engine's replay uses 128 KiB buckets of 4 KiB blocks. */
    static final int BLOCKS_PER_BUCKET = 32;
    private static final long EMPTY = -1;

    /** What happens to a block of the bucket being reused. */
    interface Evicted {
        /**
         * Decides a block's fate; the block has already left the log and the shared map.
         *
         * @return the counter it is rewritten with at the head, or -1 to let it go
         */
        int reinsert(long block, int count);
    }

    private final int buckets;
    private final long[] slots;
    private final byte[] counts;
    private final Map<Long, Integer> where;
    private final int owner;
    private final Evicted evicted;
    private int head;
    private int headUsed;
    private long rewrittenBlocks;

    /**
     * A log of {@code buckets} buckets (at least one) that records its blocks in {@code where} as
     * {@code slot * ownerCount + owner}, so that several logs can share one map.
     */
    BucketLog(int buckets, Map<Long, Integer> where, int owner, Evicted evicted) {
        this.buckets = Math.max(1, buckets);
        this.slots = new long[this.buckets * BLOCKS_PER_BUCKET];
        Arrays.fill(slots, EMPTY);
        this.counts = new byte[slots.length];
        this.where = where;
        this.owner = owner;
        this.evicted = evicted;
    }

    /** The code of a slot of this log in the shared map (two logs at most share one). */
    private int code(int slot) {
        return slot * 2 + owner;
    }

    /** Whether the map's {@code code} is a slot of this log. */
    boolean owns(int code) {
        return code % 2 == owner;
    }

    /** The counter of the block at {@code code}, raised by one up to {@code max}. */
    void hit(int code, int max) {
        int slot = code / 2;
        counts[slot] = (byte) Math.min(max, counts[slot] + 1);
    }

    /** The block the next reuse of a bucket evicts first, or -1 if that bucket is empty. */
    long nextVictim() {
        int next = headUsed < BLOCKS_PER_BUCKET ? -1 : (head + 1) % buckets;
        if (next < 0) {
            return EMPTY;
        }
        for (int i = 0; i < BLOCKS_PER_BUCKET; i++) {
            if (slots[next * BLOCKS_PER_BUCKET + i] != EMPTY) {
                return slots[next * BLOCKS_PER_BUCKET + i];
            }
        }
        return EMPTY;
    }

    /** Writes {@code block} at the head with counter {@code count}, reusing the next bucket if the head is full. */
    void append(long block, int count) {
        while (headUsed == BLOCKS_PER_BUCKET) { // a bucket whose blocks were all kept is rewritten whole
            head = (head + 1) % buckets;
            headUsed = 0;
            reuseHead();
        }
        put(block, count);
    }

    private void put(long block, int count) {
        int slot = head * BLOCKS_PER_BUCKET + headUsed++;
        slots[slot] = block;
        counts[slot] = (byte) count;
        where.put(block, code(slot));
    }

    private void reuseHead() {
        long[] keep = new long[BLOCKS_PER_BUCKET];
        int[] keepCounts = new int[BLOCKS_PER_BUCKET];
        int kept = 0;
        for (int i = 0; i < BLOCKS_PER_BUCKET; i++) {
            int slot = head * BLOCKS_PER_BUCKET + i;
            long block = slots[slot];
            if (block == EMPTY) {
                continue;
            }
            slots[slot] = EMPTY;
            where.remove(block);
            int count = evicted.reinsert(block, counts[slot]);
            if (count >= 0) {
                keep[kept] = block;
                keepCounts[kept++] = count;
            }
        }
        for (int i = 0; i < kept; i++) {
            put(keep[i], keepCounts[i]);
        }
        rewrittenBlocks += kept;
    }

    /** Blocks written again at the head so far. */
    long rewrittenBlocks() {
        return rewrittenBlocks;
    }
}

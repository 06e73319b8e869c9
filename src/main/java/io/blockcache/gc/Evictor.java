package io.blockcache.gc;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Evicts clean buckets when free space runs low (docs/GC.md).
 *
 * <p><b>Priority</b> (after bcache's {@code bucket_prio} x sectors used): a bucket's warmth is
 * {@code recencyWarmTicks - ticks since its last use} (never below 0; use = opened for writing or a read hit);
 * its eviction key is {@code (warmth + 1) x live sectors}, lowest first, ties by bucket index. So cold
 * buckets go first, sparsely used ones before full ones, and a recently hit bucket is kept longer.
 *
 * <p><b>Never chosen:</b> a bucket with dirty sectors, a pinned one (I/O in flight; not to be confused with pinned
 * ranges, whose buckets the caller may ask to pass over), or one not SEALED (OPEN, JOURNAL,
 * METADATA, FREE, REUSE_PENDING); {@link BucketAllocator#evict} checks the same again.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class Evictor {
    /**
     * Fewest free data buckets kept above the checkpoint reserve whatever the dirty share (unless the low share is
     * smaller): one for the write point that opens next while eviction's journal bump is in flight, one spare.
     */
    static final int MARGIN_MIN_BUCKETS = 2;
    /** Warmth is capped so that a key fits 31 bits with 16384-sector buckets. */
    private static final int WARMTH_MAX = 65535;

    private final BucketTable table;
    private final BucketAllocator allocator;
    private final BucketRecency recency;
    private final int dataBuckets;

    Evictor(BucketTable table, BucketAllocator allocator, BucketRecency recency, int dataBuckets) {
        this.table = table;
        this.allocator = allocator;
        this.recency = recency;
        this.dataBuckets = dataBuckets;
    }

    /**
     * Free buckets below which eviction starts: a margin on top of the buckets the allocator keeps for
     * checkpoints, which data writes can never take. Without the reserve a small cache (where the reserve is
     * larger than the low share) failed every data allocation and never evicted: writes went around the cache
     * for good (found by the fuzz, which runs caches of 16 buckets).
     *
     * <p>The margin is the low share of the data buckets times {@code dirtyShare}, the share of recent bucket
     * allocations taken by dirty writes, and at least {@link #MARGIN_MIN_BUCKETS}. Only a dirty write needs a
     * free bucket at once (refused, it goes to the backing device at its speed); a read-miss fill or a
     * write-through copy that finds none is simply not cached, and eviction frees a bucket on the next loop turn.
     * A fixed 10 % margin left a read-mostly cache 10–15 % empty (docs/CACHING.md "Free space").
     *
     * @param dirtyShare in [0, 1]; 1 = the whole low share, as before 2026-12-07
     */
    int lowMarkBuckets(GcConfig config, double dirtyShare) {
        return allocator.metadataReserveBuckets() + margin(config, dirtyShare);
    }

    /** {@link #lowMarkBuckets(GcConfig, double)} with the whole low share (dirty writes only). */
    int lowMarkBuckets(GcConfig config) {
        return lowMarkBuckets(config, 1);
    }

    private int margin(GcConfig config, double dirtyShare) {
        int full = fullMargin(config);
        return Math.max(Math.min(full, MARGIN_MIN_BUCKETS), (int) Math.ceil(full * dirtyShare));
    }

    private int fullMargin(GcConfig config) {
        return Math.max(1, dataBuckets * config.freeLowPercent() / 100);
    }

    /** Free buckets now plus those about to become free (their bump is being journaled). */
    int freeSoonBuckets() {
        return allocator.freeBuckets() + allocator.reusePendingBuckets();
    }

    /**
     * Evicts, best candidate first, until free plus reuse-pending buckets reach the target, which is the low mark
     * plus the gap between the target and low shares (eviction runs in batches: one candidate sort frees that
     * many); does nothing unless they are below the low mark.
     *
     * @param dirtyShare the share of recent bucket allocations taken by dirty writes, see {@link #lowMarkBuckets}
     * @return buckets evicted
     */
    int evictIfLow(GcConfig config, double dirtyShare) {
        return evictIfLow(config, dirtyShare, null, null);
    }

    /**
     * {@link #evictIfLow(GcConfig, double)} that passes over the buckets in {@code keep} (those holding pinned data,
     * docs/CACHING.md "Pinning") and adds to {@code passedOver} each one it passed over before it reached its target:
     * the buckets it would have evicted but for their pinned data.
     *
     * @param keep null for none
     * @param passedOver null if {@code keep} is
     */
    int evictIfLow(GcConfig config, double dirtyShare, BitSet keep, BitSet passedOver) {
        int low = lowMarkBuckets(config, dirtyShare);
        if (freeSoonBuckets() >= low) {
            return 0;
        }
        int shaved = fullMargin(config) - margin(config, dirtyShare);
        int target = Math.max(low,
                allocator.metadataReserveBuckets() + dataBuckets * config.freeTargetPercent() / 100 - shaved);
        long[] order = candidates(config);
        int evicted = 0;
        for (int i = 0; i < order.length && freeSoonBuckets() < target; i++) {
            if (keep != null && keep.get((int) order[i])) {
                passedOver.set((int) order[i]);
                continue;
            }
            if (allocator.evict((int) order[i])) {
                evicted++;
            }
        }
        return evicted;
    }

    /** {@link #evictIfLow(GcConfig, double)} with the whole low share. */
    int evictIfLow(GcConfig config) {
        return evictIfLow(config, 1);
    }

    /** Evictable buckets as {@code key << 32 | bucket}, sorted: best victim first. O(buckets log buckets). */
    long[] candidates(GcConfig config) {
        int now = recency.nowTick();
        long[] keys = new long[table.bucketCount()];
        int n = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) != BucketState.SEALED || table.dirtySectors(b) != 0 || table.pins(b) != 0
                    || table.liveSectors(b) == 0) {
                continue; // empty sealed buckets are released, not evicted
            }
            long warmth = Math.min(WARMTH_MAX,
                    Math.max(0, (long) config.recencyWarmTicks() - recency.ageTicks(b, now)));
            long key = (warmth + 1) * table.liveSectors(b);
            keys[n++] = key << 32 | b;
        }
        long[] sorted = Arrays.copyOf(keys, n);
        Arrays.sort(sorted);
        for (int i = 0; i < n; i++) {
            sorted[i] &= 0xFFFF_FFFFL;
        }
        return sorted;
    }
}

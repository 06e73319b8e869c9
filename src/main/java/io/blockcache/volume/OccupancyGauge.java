package io.blockcache.volume;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;

/**
 * How full the cache is for the occupancy cutoffs and the throttle: the share of data buckets <em>in use</em>.
 *
 * <p><b>In use</b> = a data bucket that holds dirty sectors. Data buckets are all buckets but the journal ring and
 * the allocator's metadata reserve (buckets data may never take, so a cache whose every other bucket is dirty
 * reads 100 %). Free, reuse-pending and clean buckets (and checkpoint buckets, which hold no dirty sectors) count
 * as available. Why clean buckets count as available: they can be evicted at any moment, so they do not stand in
 * the way of new writes; bcache counts them the same way (gc_stats.in_use counts buckets that are not
 * GC_MARK_RECLAIMABLE). Counting them as in use would make a cache full of clean read fills refuse writes for
 * as long as nothing evicts, the very "caching stops for good" state we must avoid.
 *
 * <p><b>Cost and freshness:</b> the gauge sweeps the bucket table in slices of at most {@link #SWEEP_BUCKETS}
 * buckets, at most one slice per {@link #SLICE_GAP_NS} of loop time, driven by the requests that ask; the
 * value published is the one of the last complete sweep. A cache of up to 4096 buckets is thus exact to within
 * 1 ms; a 1 TiB cache of 1 MiB buckets refreshes every ~256 ms under load. Why not at GC end like bcache: bcache
 * recomputed in_use only when GC ran, and once GC stopped running above 95 % the cache bypassed everything
 * forever. Here every bypassed request moves the sweep on, so the value follows writeback as it cleans.
 *
 * <p><b>Dirty data</b> (for the throttle, {@link #dirtyDataPercent}) = dirty sectors ÷ the data buckets' sectors,
 * from the same sweep. The two part under small random overwrites: the blocks not yet written again stay
 * scattered thinly over every bucket written in the last seconds, so 12 % of the cache in dirty data held 68 % of
 * the buckets (docs/bench-history/nbd.md "2026-12-02: where a 4 KiB random write's time goes"). The cutoffs stay on
 * buckets (a bucket with any dirty sector cannot be evicted, and the full-cache experiment runs out of free buckets
 * when they look at less); the throttle, which the issue asks to slow writers "as dirty data nears its limit", looks at
 * the dirty data.
 *
 * <p>Thread rule: the loop thread.
 */
final class OccupancyGauge {
    /** Buckets per sweep slice: 4096 byte-sized reads, a few microseconds. */
    static final int SWEEP_BUCKETS = 4096;
    /** At most one slice per millisecond of loop time. */
    static final long SLICE_GAP_NS = 1_000_000L;

    private final BucketTable table;
    private final BucketAllocator allocator;
    private final int bucketsOutsideJournal;
    private int dataBuckets = 1;
    private int cursor;
    private int inUseSoFar;
    private int inUseBuckets;
    private long dirtySectorsSoFar;
    private long dirtySectors;
    private boolean published;
    private long lastSliceNs;

    OccupancyGauge(BucketTable table, BucketAllocator allocator) {
        this.table = table;
        this.allocator = allocator;
        this.bucketsOutsideJournal = table.bucketCount() - table.count(BucketState.JOURNAL);
    }

    /** The share of data buckets in use, in percent [0, 100], refreshed as described above. */
    double inUsePercent(long nowNs) {
        refresh(nowNs);
        return Math.min(100.0, 100.0 * inUseBuckets / dataBuckets);
    }

    /** The data buckets in use (holding dirty sectors), refreshed as described above. */
    int inUseBuckets(long nowNs) {
        refresh(nowNs);
        return inUseBuckets;
    }

    /** Dirty sectors over the data buckets' sectors, in percent [0, 100], refreshed as described above. */
    double dirtyDataPercent(long nowNs) {
        refresh(nowNs);
        return Math.min(100.0, 100.0 * dirtySectors / ((double) dataBuckets * table.bucketSectors()));
    }

    private void refresh(long nowNs) {
        if (!published || nowNs - lastSliceNs >= SLICE_GAP_NS) {
            lastSliceNs = nowNs;
            sweepSlice();
            while (!published) {
                sweepSlice(); // the first call completes a whole sweep, so the value is never a guess
            }
        }
    }

    private void sweepSlice() {
        int end = Math.min(table.bucketCount(), cursor + SWEEP_BUCKETS);
        for (int b = cursor; b < end; b++) {
            int dirty = table.dirtySectors(b);
            if (dirty > 0) {
                inUseSoFar++;
                dirtySectorsSoFar += dirty;
            }
        }
        cursor = end;
        if (cursor == table.bucketCount()) {
            inUseBuckets = inUseSoFar;
            dirtySectors = dirtySectorsSoFar;
            dirtySectorsSoFar = 0;
            dataBuckets = Math.max(1, bucketsOutsideJournal - allocator.metadataReserveBuckets());
            inUseSoFar = 0;
            cursor = 0;
            published = true;
        }
    }
}

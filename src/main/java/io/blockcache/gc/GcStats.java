package io.blockcache.gc;

import io.blockcache.device.DurationHistogram;

/**
 * Garbage-collection statistics, in loop time. Averages are exponentially weighted with
 * weight 1/8, as bcache's {@code time_stats} do, so they follow a changing workload.
 *
 * <p>Thread rule: written on the cache's loop thread; readers on other threads may see a torn snapshot of
 * several fields, never a torn single field.
 */
public final class GcStats {
    /** EWMA weight denominator (bcache: ewma_add(..., 8, ...)). */
    static final int EWMA_WEIGHT = 8;

    private volatile long runs;
    private volatile long durationNsAverage;
    private volatile long durationNsMax;
    private volatile long intervalNsAverage;
    private volatile long lastStartNs = -1;
    private volatile long lastEndNs = -1;
    private volatile long nodesLast;
    private volatile long slicesLast;
    private volatile long markWorkNsLast;
    private volatile long markSleepNsLast;
    private volatile long staleKeysDropped;
    private volatile long bucketsEvicted;
    private volatile long movedBytes;
    private volatile long pinnedRescues;
    private volatile long compactedBuckets;
    private volatile long moveChecksumFailures;
    /** How long each mark slice held the loop; read only on the loop thread (it has no lock of its own). */
    private final DurationHistogram sliceDurations = new DurationHistogram();

    void onStart(long nowNs) {
        if (lastStartNs >= 0) {
            intervalNsAverage = ewma(intervalNsAverage, nowNs - lastStartNs, runs <= 1);
        }
        lastStartNs = nowNs;
    }

    void onEnd(long nowNs, long nodes, long slices) {
        long duration = nowNs - lastStartNs;
        durationNsAverage = ewma(durationNsAverage, duration, runs == 0);
        durationNsMax = Math.max(durationNsMax, duration);
        lastEndNs = nowNs;
        nodesLast = nodes;
        slicesLast = slices;
        runs++;
    }

    void onSlice(long costNs) {
        sliceDurations.record(costNs);
    }

    void onMarkPaced(long workNs, long sleepNs) {
        markWorkNsLast = workNs;
        markSleepNsLast = sleepNs;
    }

    private static long ewma(long average, long sample, boolean first) {
        return first ? sample : average + (sample - average) / EWMA_WEIGHT;
    }

    void addStaleKeysDropped(long keys) {
        staleKeysDropped += keys;
    }

    void addEvicted(long buckets) {
        bucketsEvicted += buckets;
    }

    void addCompacted(long buckets) {
        compactedBuckets += buckets;
    }

    void addMovedBytes(long bytes) {
        movedBytes += bytes;
    }

    void addPinnedRescues(long moves) {
        pinnedRescues += moves;
    }

    void addMoveChecksumFailure() {
        moveChecksumFailures++;
    }

    /** Completed GC runs. */
    public long runs() {
        return runs;
    }

    /** Average GC duration, ns (0 before the first run). */
    public long durationNsAverage() {
        return durationNsAverage;
    }

    /** Longest GC duration, ns. */
    public long durationNsMax() {
        return durationNsMax;
    }

    /** Average interval between GC starts, ns (the inverse of bcache's average frequency; 0 until known). */
    public long intervalNsAverage() {
        return intervalNsAverage;
    }

    /** Time since the last GC ended, ns, or -1 if none has. */
    public long sinceLastNs(long nowNs) {
        return lastEndNs < 0 ? -1 : nowNs - lastEndNs;
    }

    /** Index leaves the last mark visited. */
    public long nodesLast() {
        return nodesLast;
    }

    /** Slices the last mark took. */
    public long slicesLast() {
        return slicesLast;
    }

    /** Measured loop time the last mark's slices took, ns (0 where not measurable: simulated time). */
    public long markWorkNsLast() {
        return markWorkNsLast;
    }

    /** Sleeps between the last mark's slices, ns. */
    public long markSleepNsLast() {
        return markSleepNsLast;
    }

    /** Stale keys the marks dropped since start. */
    public long staleKeysDropped() {
        return staleKeysDropped;
    }

    /** Clean buckets evicted by GC since start. */
    public long bucketsEvicted() {
        return bucketsEvicted;
    }

    /** Bytes moving GC copied since start. */
    public long movedBytes() {
        return movedBytes;
    }

    /** Dirty buckets chosen for compaction since start (docs/GC.md "Compaction"). */
    public long compactedBuckets() {
        return compactedBuckets;
    }

    /**
     * How long each mark slice held the loop since start, ns of the loop's clock (all 0 in simulated time, where a
     * task takes no time). Only on the loop thread.
     */
    public DurationHistogram.Counts sliceDurations() {
        return sliceDurations.counts();
    }

    /** Pieces moving GC left in place because their cached data failed its CRC32C check. */
    public long moveChecksumFailures() {
        return moveChecksumFailures;
    }

    /** Moves that took pinned data out of buckets eviction had passed over (docs/CACHING.md "Pinning"). */
    public long pinnedRescues() {
        return pinnedRescues;
    }
}

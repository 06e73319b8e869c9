package io.blockcache.admin;

import io.blockcache.device.DurationHistogram;

/**
 * Garbage collection of the cache at one moment (docs/GC.md), copied on the loop thread. Durations are loop
 * time; averages are bcache-style EWMAs with weight 1/8. Immutable.
 *
 * @param running true while a GC run is in progress
 * @param runs completed GC runs
 * @param durationNsAverage average run duration (0 before the first run)
 * @param durationNsMax longest run
 * @param intervalNsAverage average time between run starts (0 until two runs started)
 * @param sinceLastNs time since the last run ended; -1 if none has
 * @param buckets bucket usage now
 * @param bucketsEvicted clean buckets GC evicted
 * @param movedBytes bytes moving GC copied
 * @param compactedBuckets dirty buckets chosen for compaction (docs/GC.md "Compaction")
 * @param staleKeysDropped stale keys the marks dropped
 * @param moveChecksumFailures pieces moving GC left in place because their data failed its CRC32C
 * @param allocationWaits data allocations refused (each sent a write or fill around the cache)
 * @param sliceDurations how long each mark slice held the loop, since open
 */
public record GcSnapshot(boolean running, long runs, long durationNsAverage, long durationNsMax,
                         long intervalNsAverage, long sinceLastNs, Buckets buckets, long bucketsEvicted,
                         long movedBytes, long compactedBuckets, long staleKeysDropped, long moveChecksumFailures,
                         long allocationWaits, DurationHistogram.Counts sliceDurations) {

    /**
     * How the buckets are used, as GC classifies them.
     *
     * @param clean sealed, holding only clean data (evictable)
     * @param dirty sealed, holding some dirty data (never evicted)
     * @param emptyWaiting sealed and empty, waiting for the generation guard to release them
     */
    public record Buckets(int free, int reusePending, int open, int clean, int dirty, int emptyWaiting, int metadata,
                          int journal) {
    }
}

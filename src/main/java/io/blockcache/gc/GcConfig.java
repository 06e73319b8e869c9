package io.blockcache.gc;

import io.blockcache.loop.Checks;
import java.util.concurrent.TimeUnit;

/**
 * Garbage-collection settings, validated once here; defaults and their sources in {@link #defaults()}.
 *
 * @param nodesPerSliceMin fewest index leaves ("nodes") one mark slice handles
 * @param sliceSleepNs longest pause between mark slices while front-end I/O is in flight (the duration budget may
 *     allow less)
 * @param sliceCostNsTarget loop time one mark slice should take, measured; 0 for no bound but the node counts
 * @param durationPercentMax a sliced mark may take at most this share of its estimated unsliced duration (the
 *     sum of its measured slice costs); sleeps are cut to fit
 * @param freeLowPercent free data buckets below this share of the data buckets, times the dirty writes' share of
 *     recent bucket allocations (at least 2 buckets; {@code Evictor.lowMarkBuckets}), start eviction and a GC
 * @param freeTargetPercent eviction stops once free plus reuse-pending buckets reach this share
 * @param movingLivePercentMax a sealed bucket at most this full (live sectors) is a moving-GC candidate
 * @param movingBucketsMax most buckets moving GC empties per GC run (bounds the copying a run does)
 * @param movingFreePercentMax moving GC runs only while free buckets are below this share (it costs writes)
 * @param recencyTickNs length of one recency tick; read hits are remembered at this granularity
 * @param recencyWarmTicks a bucket hit within this many ticks counts as warm (kept longer)
 * @param generationDistanceMax how far a bucket's generation may run ahead of the oldest generation any
 *     stored key may carry; below 2^15 so that equality of 16-bit generations is never ambiguous
 * @param writtenFractionDenominator a GC starts after 1/this of the data capacity was allocated
 * @param compactDirtyPercent while more than this share of the data buckets hold dirty data, moving GC also
 *     compacts the sparsest of them (at most {@code movingLivePercentMax} live), whatever the free space; 100 = never
 */
public record GcConfig(int nodesPerSliceMin, long sliceSleepNs, long sliceCostNsTarget, int durationPercentMax,
                       int freeLowPercent, int freeTargetPercent,
                       int movingLivePercentMax, int movingBucketsMax, int movingFreePercentMax, long recencyTickNs,
                       int recencyWarmTicks, int generationDistanceMax, int writtenFractionDenominator,
                       int compactDirtyPercent) {
    public GcConfig {
        Checks.require(nodesPerSliceMin >= 1 && nodesPerSliceMin <= 1_000_000, "nodesPerSliceMin in [1, 10^6]: %s",
                nodesPerSliceMin);
        Checks.require(sliceSleepNs >= 0 && sliceSleepNs <= TimeUnit.SECONDS.toNanos(1), "sliceSleepNs in [0, 1 s]: %s",
                sliceSleepNs);
        Checks.require(sliceCostNsTarget >= 0 && sliceCostNsTarget <= TimeUnit.SECONDS.toNanos(1),
                "sliceCostNsTarget in [0, 1 s]: %s", sliceCostNsTarget);
        Checks.require(durationPercentMax >= 100 && durationPercentMax <= 10_000,
                "durationPercentMax in [100, 10000]: %s", durationPercentMax);
        Checks.require(freeLowPercent >= 1 && freeLowPercent <= 50, "freeLowPercent in [1, 50]: %s", freeLowPercent);
        Checks.require(freeTargetPercent >= freeLowPercent && freeTargetPercent <= 60,
                "freeTargetPercent in [freeLowPercent, 60]: %s", freeTargetPercent);
        Checks.require(movingLivePercentMax >= 0 && movingLivePercentMax <= 90, "movingLivePercentMax in [0, 90]: %s",
                movingLivePercentMax);
        Checks.require(movingBucketsMax >= 0 && movingBucketsMax <= 1024, "movingBucketsMax in [0, 1024]: %s",
                movingBucketsMax);
        Checks.require(movingFreePercentMax >= 0 && movingFreePercentMax <= 100, "movingFreePercentMax in [0, 100]: %s",
                movingFreePercentMax);
        Checks.require(recencyTickNs > 0, "recencyTickNs must be positive: %s", recencyTickNs);
        Checks.require(recencyWarmTicks >= 0, "recencyWarmTicks must not be negative: %s", recencyWarmTicks);
        Checks.require(generationDistanceMax >= 2 && generationDistanceMax < (1 << 15),
                "generationDistanceMax in [2, 32767]: %s", generationDistanceMax);
        Checks.require(writtenFractionDenominator >= 1 && writtenFractionDenominator <= 1024,
                "writtenFractionDenominator in [1, 1024]: %s", writtenFractionDenominator);
        Checks.require(compactDirtyPercent >= COMPACT_HYSTERESIS_PERCENT && compactDirtyPercent <= 100,
                "compactDirtyPercent in [%s, 100]: %s", COMPACT_HYSTERESIS_PERCENT, compactDirtyPercent);
    }

    /** Compaction, once started, empties buckets until this many points below {@code compactDirtyPercent}. */
    public static final int COMPACT_HYSTERESIS_PERCENT = 5;

    /**
     * Defaults: 10 nodes per slice and 10 ms sleeps (bcache's GC-latency patch); slices of 0.5 ms measured loop time (a
     * quarter of the GC's 2 ms front-end latency target, leaving room for the front end's own work queued behind a
     * slice) and a sliced mark at most 1.3 times as long as an unsliced one; eviction below
     * 10 % free up to 15 % (a margin so that eviction runs in batches); moving GC of buckets at most
     * 25 % live, 16 per run, while
     * free buckets are below 25 % (ours: copying costs cache writes, so only when space is wanted); recency in
     * 100 ms ticks, warm for 60 s (ours; bcache keeps a 16-bit priority that decays with I/O); a generation
     * distance of 16384 = 1/4 of the 16-bit space (bcache: BUCKET_GC_GEN_MAX 96 of 8-bit generations); a GC
     * after 1/16 of the capacity was written (bcache: sectors_to_gc); compaction above 35 % of the buckets dirty (ours:
     * below the 40 % occupancy cutoff, where writes would start going around the cache, and the fragmentation
     * boost's 50 %, where writeback would start writing everything back; 35 rather than the 30 of 2026-12-03 because
     * the later the start, the older and sparser the buckets it empties: under 4 KiB random overwrites it copied 9.6 %
     * of what the front end wrote instead of 14.5 %; docs/GC.md "Compaction").
     */
    public static GcConfig defaults() {
        return new GcConfig(10, TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.MICROSECONDS.toNanos(500), 130, 10, 15,
                25, 16, 25, TimeUnit.MILLISECONDS.toNanos(100), 600, 16384, 16, 35);
    }

    /** A copy with other mark pacing (see {@link GarbageCollector}: slice floor, sleep, slice cost, budget). */
    public GcConfig withPacing(int nodesMin, long sleepNs, long costNsTarget, int percentMax) {
        return new GcConfig(nodesMin, sleepNs, costNsTarget, percentMax, freeLowPercent, freeTargetPercent,
                movingLivePercentMax, movingBucketsMax, movingFreePercentMax, recencyTickNs, recencyWarmTicks,
                generationDistanceMax, writtenFractionDenominator, compactDirtyPercent);
    }

    /** A copy with another generation distance bound (tests use small ones to reach the guard). */
    public GcConfig withGenerationDistanceMax(int distance) {
        return new GcConfig(nodesPerSliceMin, sliceSleepNs, sliceCostNsTarget, durationPercentMax,
                freeLowPercent, freeTargetPercent, movingLivePercentMax,
                movingBucketsMax, movingFreePercentMax, recencyTickNs, recencyWarmTicks, distance,
                writtenFractionDenominator, compactDirtyPercent);
    }

    /** A copy with other moving-GC limits. */
    public GcConfig withMoving(int livePercentMax, int bucketsMax, int freePercentMax) {
        return new GcConfig(nodesPerSliceMin, sliceSleepNs, sliceCostNsTarget, durationPercentMax,
                freeLowPercent, freeTargetPercent, livePercentMax,
                bucketsMax, freePercentMax, recencyTickNs, recencyWarmTicks, generationDistanceMax,
                writtenFractionDenominator, compactDirtyPercent);
    }

    /** A copy with other eviction marks. */
    public GcConfig withFreePercents(int low, int target) {
        return new GcConfig(nodesPerSliceMin, sliceSleepNs, sliceCostNsTarget, durationPercentMax,
                low, target, movingLivePercentMax, movingBucketsMax,
                movingFreePercentMax, recencyTickNs, recencyWarmTicks, generationDistanceMax,
                writtenFractionDenominator, compactDirtyPercent);
    }

    /** A copy that starts a GC after 1/{@code denominator} of the capacity was allocated. */
    public GcConfig withWrittenFractionDenominator(int denominator) {
        return new GcConfig(nodesPerSliceMin, sliceSleepNs, sliceCostNsTarget, durationPercentMax,
                freeLowPercent, freeTargetPercent, movingLivePercentMax,
                movingBucketsMax, movingFreePercentMax, recencyTickNs, recencyWarmTicks, generationDistanceMax,
                denominator, compactDirtyPercent);
    }

    /** A copy that compacts dirty buckets above {@code percent} of the data buckets (100: never). */
    public GcConfig withCompactDirtyPercent(int percent) {
        return new GcConfig(nodesPerSliceMin, sliceSleepNs, sliceCostNsTarget, durationPercentMax,
                freeLowPercent, freeTargetPercent, movingLivePercentMax,
                movingBucketsMax, movingFreePercentMax, recencyTickNs, recencyWarmTicks, generationDistanceMax,
                writtenFractionDenominator, percent);
    }

}

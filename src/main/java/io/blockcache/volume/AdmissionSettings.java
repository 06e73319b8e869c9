package io.blockcache.volume;

import static io.blockcache.loop.Checks.require;

/**
 * Which read misses of a volume are filled into the cache (docs/CACHING.md). Immutable; validated here.
 *
 * @param countMin a miss fills only if its block was seen at least this many times lately, this read included, by
 *     the volume's {@link FrequencySketch}; 0 or 1 = every miss fills (admission off). Default 2: a block read
 *     once is not worth a fill (the "read once vs more than once" bit s3backer's maintainer suggested, and
 *     TinyLFU's doorkeeper), measured in docs/BENCHMARKS.md "Hit ratio"
 * @param freePercent while more than this share of the cache's buckets is free, every miss fills whatever its
 *     count: a fill then displaces nothing. Default 20: above GC's free target (15 %), so admission starts only
 *     once eviction has begun
 * @param promoteAgePercent a read hit on clean data in a bucket opened longer ago than this share of the cache's
 *     buckets (counted in buckets opened since) rewrites the hit blocks into the newest bucket, so hot blocks leave
 *     a bucket before eviction takes it (CacheLib Navy's reinsertion, done on the hit, when the data is in hand);
 *     0 = never. Default 50: the older half of the cache is where eviction picks
 */
public record AdmissionSettings(int countMin, int freePercent, int promoteAgePercent) {
    /** The largest count the sketch can report (15 in the counters plus the doorkeeper's 1). */
    public static final int COUNT_MIN_MAX = FrequencySketch.COUNT_MAX + 1;

    public AdmissionSettings {
        require(countMin >= 0 && countMin <= COUNT_MIN_MAX, "countMin must be in [0, %s]: %s", COUNT_MIN_MAX,
                countMin);
        require(freePercent >= 0 && freePercent <= 100, "freePercent must be in [0, 100]: %s", freePercent);
        require(promoteAgePercent >= 0 && promoteAgePercent <= 100, "promoteAgePercent must be in [0, 100]: %s",
                promoteAgePercent);
    }

    /** Defaults: fill a miss from its second sighting, once fewer than 20 % of the buckets are free. */
    public static AdmissionSettings defaults() {
        return new AdmissionSettings(2, 20, 50);
    }

    /** Every miss fills and no hit is rewritten, as before admission existed. */
    public static AdmissionSettings off() {
        return new AdmissionSettings(0, 20, 0);
    }

    public AdmissionSettings withCountMin(int value) {
        return new AdmissionSettings(value, freePercent, promoteAgePercent);
    }

    public AdmissionSettings withFreePercent(int value) {
        return new AdmissionSettings(countMin, value, promoteAgePercent);
    }

    public AdmissionSettings withPromoteAgePercent(int value) {
        return new AdmissionSettings(countMin, freePercent, value);
    }
}

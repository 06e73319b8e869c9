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
 */
public record AdmissionSettings(int countMin, int freePercent) {
    /** The largest count the sketch can report (15 in the counters plus the doorkeeper's 1). */
    public static final int COUNT_MIN_MAX = FrequencySketch.COUNT_MAX + 1;

    public AdmissionSettings {
        require(countMin >= 0 && countMin <= COUNT_MIN_MAX, "countMin must be in [0, %s]: %s", COUNT_MIN_MAX,
                countMin);
        require(freePercent >= 0 && freePercent <= 100, "freePercent must be in [0, 100]: %s", freePercent);
    }

    /** Defaults: fill a miss from its second sighting, once fewer than 20 % of the buckets are free. */
    public static AdmissionSettings defaults() {
        return new AdmissionSettings(2, 20);
    }

    /** Every miss fills, as before admission existed. */
    public static AdmissionSettings off() {
        return new AdmissionSettings(0, 20);
    }

    public AdmissionSettings withCountMin(int value) {
        return new AdmissionSettings(value, freePercent);
    }

    public AdmissionSettings withFreePercent(int value) {
        return new AdmissionSettings(countMin, value);
    }
}

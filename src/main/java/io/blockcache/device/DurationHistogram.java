package io.blockcache.device;

import java.util.Arrays;

/**
 * Durations counted into fixed buckets, as a Prometheus classic histogram wants them: one count per bucket and the
 * sum of every duration recorded. Recording is a binary search over {@link #BUCKETS} bounds and two additions: no
 * allocation, no clock (the caller measures the duration on its own clock), so the I/O path can afford it per request
 * where the HdrHistogram beside it ({@link DeviceCounters#latencyNs}) is costly to read.
 *
 * <p>Bounds: 1, 2.5 and 5 per decade from 10 µs to 10 s (19 bounds and +Inf), so a fast SSD's hits, a disk's
 * misses and a stalled backing device each land in a bucket of their own, and quantiles estimated by
 * {@code histogram_quantile} are within a factor 2.5 everywhere in that range.
 *
 * <p>Thread rule: none of its own; its owner guards it ({@link DeviceCounters} under its monitor, GC on its loop
 * thread) and copies it with {@link #counts} for readers.
 */
public final class DurationHistogram {
    /** Upper bounds of the finite buckets, ns, ascending; a last bucket (+Inf) holds the rest. */
    private static final long[] UPPER_BOUNDS_NS = {
        10_000L, 25_000L, 50_000L,
        100_000L, 250_000L, 500_000L,
        1_000_000L, 2_500_000L, 5_000_000L,
        10_000_000L, 25_000_000L, 50_000_000L,
        100_000_000L, 250_000_000L, 500_000_000L,
        1_000_000_000L, 2_500_000_000L, 5_000_000_000L,
        10_000_000_000L,
    };
    /** Buckets, the +Inf one included. */
    public static final int BUCKETS = UPPER_BOUNDS_NS.length + 1;

    private final long[] bucketCounts = new long[BUCKETS];
    private long sumNs;

    /** Counts one duration of {@code durationNs} (a negative one, from a clock that stepped back, counts as 0). */
    public void record(long durationNs) {
        long clamped = Math.max(0, durationNs);
        bucketCounts[bucketOf(clamped)]++;
        sumNs += clamped;
    }

    /** The bucket a duration falls in: the first whose upper bound is at least {@code durationNs} ("le"). */
    static int bucketOf(long durationNs) {
        int at = Arrays.binarySearch(UPPER_BOUNDS_NS, durationNs);
        return at >= 0 ? at : -at - 1;
    }

    /** The upper bound of {@code bucket}, ns; {@link Long#MAX_VALUE} for the last (+Inf). */
    public static long upperBoundNs(int bucket) {
        return bucket < UPPER_BOUNDS_NS.length ? UPPER_BOUNDS_NS[bucket] : Long.MAX_VALUE;
    }

    /** A copy of the counts so far. */
    public Counts counts() {
        return new Counts(bucketCounts, sumNs); // the record copies the array
    }

    /**
     * The counts of a histogram at one moment. Immutable (the array is a copy, never handed out).
     *
     * @param sumNs the sum of every duration recorded, ns
     */
    public record Counts(long[] bucketCounts, long sumNs) {
        /** No durations yet. */
        public static final Counts EMPTY = new Counts(new long[BUCKETS], 0);

        public Counts {
            if (bucketCounts.length != BUCKETS) {
                throw new IllegalArgumentException("a histogram has " + BUCKETS + " buckets: " + bucketCounts.length);
            }
            bucketCounts = bucketCounts.clone();
        }

        /** Durations in {@code bucket} alone (not cumulative). */
        public long bucketCount(int bucket) {
            return bucketCounts[bucket];
        }

        /** Durations recorded. */
        public long count() {
            long count = 0;
            for (long one : bucketCounts) {
                count += one;
            }
            return count;
        }

        @Override
        public long[] bucketCounts() {
            return bucketCounts.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Counts that && sumNs == that.sumNs
                    && Arrays.equals(bucketCounts, that.bucketCounts);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(bucketCounts) + Long.hashCode(sumNs);
        }

        @Override
        public String toString() {
            return "Counts" + Arrays.toString(bucketCounts) + " sumNs=" + sumNs;
        }
    }
}

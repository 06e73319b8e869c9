package io.blockcache.volume;

/**
 * How often each key (a 4 KiB block number) was seen lately, approximately: TinyLFU's frequency sketch (Einziger,
 * Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", ACM ToS 2017). A count-min sketch of
 * four rows of 4-bit counters (saturating at 15) behind a doorkeeper (a Bloom filter of two bits per key): a key's
 * first sighting in a period only sets its doorkeeper bits, later ones count in the sketch, and the estimate is
 * the smallest of its four counters plus one if the doorkeeper knows it. After {@code sampleSize} sightings every
 * counter is halved and the doorkeeper cleared (the paper's reset), so the sketch forgets old popularity.
 *
 * <p>Memory: {@code width} columns × 4 rows × 4 bits plus {@code width} doorkeeper bits = 2.125 bytes per column,
 * fixed at construction ({@link #memoryBytes()}); the width is four times the expected number of distinct keys
 * rounded up to a power of two: 8.5-17 bytes per key. Hashing is a fixed mix (no random seed), so the same stream
 * gives the same estimates.
 *
 * <p>Thread rule: one thread (the owning loop).
 */
public final class FrequencySketch {
    /** A counter's largest value: 4 bits. */
    public static final int COUNT_MAX = 15;
    private static final int ROWS = 4;
    private static final long[] ROW_SEEDS = {
        0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L, 0xD6E8FEB86659FD93L,
    };

    private final long[] counters; // ROWS rows of width 4-bit counters, 16 per long
    private final long[] doorkeeper;
    private final int widthMask;
    private final int rowLongs;
    private final long sampleSize;
    private long samples;
    private long resets;

    /**
     * A sketch for about {@code expectedKeys} distinct keys (at least 16), reset after {@code sampleSize}
     * sightings (the paper's W; 10 × the cache's blocks is its choice).
     */
    public FrequencySketch(long expectedKeys, long sampleSize) {
        if (expectedKeys < 1 || expectedKeys > (1L << 26) || sampleSize < 1) {
            throw new IllegalArgumentException("expectedKeys in [1, 2^26] and sampleSize >= 1: " + expectedKeys
                    + ", " + sampleSize);
        }
        // Four columns per key, as Caffeine's sketch (16 counters per key in 4 rows): narrower, the collisions of
        // a cache-full of keys inflate a new key's count past the doorkeeper's (measured on a 100-block cache).
        int width = Integer.highestOneBit((int) Math.max(16, expectedKeys * 4 - 1) << 1);
        this.widthMask = width - 1;
        this.rowLongs = width / 16;
        this.counters = new long[ROWS * rowLongs];
        this.doorkeeper = new long[Math.max(1, width / 64)];
        this.sampleSize = sampleSize;
    }

    /** Records one sighting of {@code key}. */
    public void increment(long key) {
        long h = mix(key);
        int d1 = (int) h & widthMask;
        int d2 = (int) (h >>> 32) & widthMask;
        if (!doorkeeperHas(d1, d2)) {
            doorkeeper[d1 >>> 6] |= 1L << d1;
            doorkeeper[d2 >>> 6] |= 1L << d2;
        } else {
            int smallest = COUNT_MAX;
            for (int row = 0; row < ROWS; row++) {
                smallest = Math.min(smallest, counter(row, index(key, row)));
            }
            if (smallest < COUNT_MAX) { // conservative update: raise only the smallest counters
                for (int row = 0; row < ROWS; row++) {
                    int column = index(key, row);
                    if (counter(row, column) == smallest) {
                        add(row, column);
                    }
                }
            }
        }
        if (++samples >= sampleSize) {
            reset();
        }
    }

    /** The estimated sightings of {@code key} in the current period, 0..16. */
    public int estimate(long key) {
        long h = mix(key);
        if (!doorkeeperHas((int) h & widthMask, (int) (h >>> 32) & widthMask)) {
            return 0;
        }
        int smallest = COUNT_MAX;
        for (int row = 0; row < ROWS; row++) {
            smallest = Math.min(smallest, counter(row, index(key, row)));
        }
        return smallest + 1;
    }

    /** Bytes this sketch holds (its arrays). */
    public long memoryBytes() {
        return 8L * (counters.length + doorkeeper.length);
    }

    /** How many times the counters were halved. */
    public long resets() {
        return resets;
    }

    private boolean doorkeeperHas(int d1, int d2) {
        return (doorkeeper[d1 >>> 6] & 1L << d1) != 0 && (doorkeeper[d2 >>> 6] & 1L << d2) != 0;
    }

    private int index(long key, int row) {
        return (int) (mix(key ^ ROW_SEEDS[row]) >>> 17) & widthMask;
    }

    private int counter(int row, int column) {
        long word = counters[row * rowLongs + (column >>> 4)];
        return (int) (word >>> ((column & 15) << 2)) & 0xF;
    }

    private void add(int row, int column) {
        counters[row * rowLongs + (column >>> 4)] += 1L << ((column & 15) << 2);
    }

    /** Halves every counter and clears the doorkeeper (the paper's reset). */
    private void reset() {
        for (int i = 0; i < counters.length; i++) {
            counters[i] = (counters[i] >>> 1) & 0x7777_7777_7777_7777L;
        }
        java.util.Arrays.fill(doorkeeper, 0);
        samples /= 2;
        resets++;
    }

    /** SplitMix64's finaliser: a fixed, well-spread 64-bit mix. */
    private static long mix(long key) {
        long z = key + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

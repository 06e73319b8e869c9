package io.blockcache.loop;

/**
 * A small, fast, seeded pseudo-random generator (SplitMix64) — the only randomness the engine and the
 * simulator may use, so that every run is a pure function of its seed.
 *
 * <p>Not thread-safe: each owner keeps its own instance; {@link #split()} derives an independent stream
 * for a sub-component without disturbing the sequence seen by others.
 */
public final class Prng {
    /** SplitMix64 increment (Steele, Lea, Flood 2014): an odd constant close to 2^64 / golden ratio. */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    /** Creates a generator whose whole sequence is determined by {@code seed}. */
    public Prng(long seed) {
        this.state = seed;
    }

    /** Returns the next 64 uniformly distributed bits. */
    public long nextLong() {
        long z = (state += GOLDEN_GAMMA);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Returns a uniformly distributed int in {@code [0, boundExclusive)}; {@code boundExclusive > 0}. */
    public int nextInt(int boundExclusive) {
        return (int) nextLong(boundExclusive);
    }

    /** Returns a uniformly distributed long in {@code [0, boundExclusive)}; {@code boundExclusive > 0}. */
    public long nextLong(long boundExclusive) {
        if (boundExclusive <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + boundExclusive);
        }
        // Rejection sampling keeps the distribution exactly uniform for bounds that are not powers of two.
        long limit = Long.MAX_VALUE - (Long.MAX_VALUE % boundExclusive);
        long bits;
        do {
            bits = nextLong() >>> 1;
        } while (bits >= limit);
        return bits % boundExclusive;
    }

    /** Returns a long uniformly distributed in {@code [minInclusive, maxInclusive]}. */
    public long nextLongBetween(long minInclusive, long maxInclusive) {
        if (maxInclusive < minInclusive) {
            throw new IllegalArgumentException("empty range [" + minInclusive + ", " + maxInclusive + "]");
        }
        return minInclusive + nextLong(maxInclusive - minInclusive + 1);
    }

    /** Returns a double uniformly distributed in {@code [0, 1)}. */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Returns true with probability {@code probability} (clamped to [0, 1]). */
    public boolean chance(double probability) {
        return nextDouble() < probability;
    }

    /** Fills {@code bytes} with random bytes. */
    public void nextBytes(byte[] bytes) {
        int i = 0;
        while (i < bytes.length) {
            long bits = nextLong();
            for (int k = 0; k < Long.BYTES && i < bytes.length; k++, bits >>>= 8) {
                bytes[i++] = (byte) bits;
            }
        }
    }

    /** Returns a new generator seeded from this one: an independent stream for a sub-component. */
    public Prng split() {
        return new Prng(nextLong());
    }
}

package io.blockcache.backing;

import io.blockcache.loop.Prng;

/**
 * The delays between retries of a failed S3 request: exponential from {@link #FIRST_DELAY_NS} to
 * {@link #DELAY_NS_MAX}, each drawn from the upper half of its step ("equal jitter", AWS Architecture Blog,
 * "Exponential Backoff And Jitter", 2015) so that the I/O threads' retries after one network blip spread out instead
 * of arriving together. The jitter comes from a seeded {@link Prng}: a run is repeatable from its seed.
 *
 * <p>Thread rule: one thread (the device's loop).
 */
final class S3Backoff {
    /** The first retry's step: past a dropped connection's reset, short next to a flush's patience. */
    static final long FIRST_DELAY_NS = 200_000_000L;
    /** The longest step: 10 s, so a store that comes back is used again within seconds. */
    static final long DELAY_NS_MAX = 10_000_000_000L;
    /** Doublings after which the step is {@link #DELAY_NS_MAX} in any case (200 ms x 2^6 > 10 s). */
    private static final int DOUBLINGS_MAX = 6;

    private final Prng prng;

    /** Delays drawn from {@code seed}. */
    S3Backoff(long seed) {
        this.prng = new Prng(seed);
    }

    /**
     * The delay before retry number {@code retriesDone + 1}, in ns: in [step / 2, step] with step = 200 ms x
     * 2^retriesDone, at most 10 s.
     */
    long delayNs(int retriesDone) {
        if (retriesDone < 0) {
            throw new IllegalArgumentException("retries done must not be negative: " + retriesDone);
        }
        long stepNs = Math.min(DELAY_NS_MAX, FIRST_DELAY_NS << Math.min(retriesDone, DOUBLINGS_MAX));
        return stepNs / 2 + prng.nextLong(stepNs / 2 + 1);
    }
}

package io.blockcache.fuzz;

import io.blockcache.loop.Prng;

/**
 * The device faults a fuzz seed injects while its workload runs (never during a recovery: a power cycle
 * clears them): failed requests on the backing and cache devices, and failed flushes that lose some of the
 * volatile writes they covered and say so to their own caller only (Linux semantics).
 *
 * @param backingFlushFailProbability chance that a backing flush fails
 * @param backingRequestFailProbability chance that a backing read, write or discard fails
 * @param cacheFlushFailProbability chance that a cache-device flush fails
 * @param cacheRequestFailProbability chance that a cache-device read, write or discard fails
 */
public record FuzzFaults(double backingFlushFailProbability, double backingRequestFailProbability,
                         double cacheFlushFailProbability, double cacheRequestFailProbability) {
    /** Validates the probabilities. */
    public FuzzFaults {
        for (double p : new double[] {backingFlushFailProbability, backingRequestFailProbability,
            cacheFlushFailProbability, cacheRequestFailProbability}) {
            if (!(p >= 0 && p <= 0.5)) {
                throw new IllegalArgumentException("fault probability must be in [0, 0.5]: " + p);
            }
        }
    }

    /** No faults. */
    public static FuzzFaults none() {
        return new FuzzFaults(0, 0, 0, 0);
    }

    /** Draws faults for a seed: none in 60 % of seeds, else small seeded rates of each kind. */
    public static FuzzFaults draw(Prng prng) {
        if (prng.chance(0.6)) {
            return none();
        }
        return new FuzzFaults(prng.chance(0.5) ? 0.05 : 0, prng.chance(0.5) ? 0.003 : 0,
                prng.chance(0.3) ? 0.02 : 0, prng.chance(0.3) ? 0.001 : 0);
    }

    /** True if any fault can happen. */
    public boolean any() {
        return backingFlushFailProbability > 0 || backingRequestFailProbability > 0 || cacheFlushFailProbability > 0
                || cacheRequestFailProbability > 0;
    }
}

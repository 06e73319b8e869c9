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
 * @param cacheDiskFullChance chance, at each control slot, that the file system under the cache file fills up (new
 *     blocks get ENOSPC; what the file already has can be overwritten) or, when full, gets space again
 *     ({@link FuzzCacheSet#toggleCacheDiskFull}); 0 before the disk-full generator (2026-12-07)
 */
public record FuzzFaults(double backingFlushFailProbability, double backingRequestFailProbability,
                         double cacheFlushFailProbability, double cacheRequestFailProbability,
                         double cacheDiskFullChance) {
    /** Validates the probabilities. */
    public FuzzFaults {
        for (double p : new double[] {backingFlushFailProbability, backingRequestFailProbability,
            cacheFlushFailProbability, cacheRequestFailProbability, cacheDiskFullChance}) {
            if (!(p >= 0 && p <= 0.5)) {
                throw new IllegalArgumentException("fault probability must be in [0, 0.5]: " + p);
            }
        }
    }

    /** No faults. */
    public static FuzzFaults none() {
        return new FuzzFaults(0, 0, 0, 0, 0);
    }

    /** Draws faults for a seed: none in 60 % of seeds, else small seeded rates of each kind. */
    public static FuzzFaults draw(Prng prng) {
        if (prng.chance(0.6)) {
            return none();
        }
        return new FuzzFaults(prng.chance(0.5) ? 0.05 : 0, prng.chance(0.5) ? 0.003 : 0,
                prng.chance(0.3) ? 0.02 : 0, prng.chance(0.3) ? 0.001 : 0, 0);
    }

    /**
     * These faults with the disk-full dimension drawn from {@code drawn}, a stream of its own (so every earlier draw
     * of a seed stays as it was): in a quarter of the seeds the cache file's file system fills up and frees again
     * while the workload runs.
     */
    public FuzzFaults withDiskFull(Prng drawn) {
        return new FuzzFaults(backingFlushFailProbability, backingRequestFailProbability, cacheFlushFailProbability,
                cacheRequestFailProbability, drawn.chance(0.25) ? 0.02 : 0);
    }

    /** True if any fault can happen. */
    public boolean any() {
        return backingFlushFailProbability > 0 || backingRequestFailProbability > 0 || cacheFlushFailProbability > 0
                || cacheRequestFailProbability > 0 || cacheDiskFullChance > 0;
    }
}

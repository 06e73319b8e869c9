package io.blockcache.volume;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one volume's damage map: what the map costs (block writes per newly marked region) and what it
 * cleared. Atomics, readable from any thread.
 */
public final class DamageMapStats {
    /** Front-end writes that found their regions already marked (no map write). */
    public final AtomicLong writesCovered = new AtomicLong();
    /** Mark requests that had to wait for a map write. */
    public final AtomicLong markWaits = new AtomicLong();
    /** Regions newly marked by a front-end write. */
    public final AtomicLong regionsMarked = new AtomicLong();
    /** Regions cleared by sweeps. */
    public final AtomicLong regionsCleared = new AtomicLong();
    /** Map block writes (FUA) to the backing device. */
    public final AtomicLong blockWrites = new AtomicLong();
    /** Map block writes that failed. */
    public final AtomicLong blockWriteErrors = new AtomicLong();
    /** Sweeps run. */
    public final AtomicLong sweeps = new AtomicLong();
}

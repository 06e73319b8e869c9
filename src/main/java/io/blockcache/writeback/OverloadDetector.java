package io.blockcache.writeback;

/**
 * Decides when a busy front end is adding dirty data faster than the PI rate cleans it, so that writeback must run at
 * what the backing device can take instead (docs/WRITEBACK.md "Sustained writes"). bcache's PI controller moves the
 * rate by error/40 per second plus a slow integral: with a cache tens of per cent above its target it writes back a
 * fraction of a MiB/s while a front end that never idles dirties tens of MiB/s, until the throttle and the occupancy
 * cutoffs take over and hold the front end at that fraction (measured: 0.10× the ideal sweep, 62 % of the writes
 * around the cache, `bench writeback` sustained rows, 2026-12-07).
 *
 * <p>Overloaded: the dirty data is above the target and grew over {@link #RISING_UPDATES} rate updates in a row
 * (the PI controller had its chance), or it passed the early mark (half way from the target to the throttle's start,
 * where waiting would let the throttle hold writers first). It stays overloaded until the dirty data is back at the
 * target; then the PI rate resumes. A light front end, whose dirty data the PI rate holds near the target, never
 * becomes overloaded, so the seeds' behaviour (idle detection, early flush, PI toward the target) is unchanged there.
 *
 * <p>Thread rule: the loop thread. Pure state, no I/O.
 */
final class OverloadDetector {
    /** Rate updates (5 s each by default) of rising dirty data above the target before writeback goes to full speed. */
    static final int RISING_UPDATES = 2;

    private long dirtyAtLastUpdateSectors = -1;
    private int risingUpdates;
    private boolean overloaded;

    /** At each rate update: counts updates in a row that found more dirty data than the last, above the target. */
    void rateUpdate(long dirtySectors, long targetSectors) {
        boolean rising = dirtyAtLastUpdateSectors >= 0 && dirtySectors > dirtyAtLastUpdateSectors
                && dirtySectors > targetSectors;
        risingUpdates = rising ? risingUpdates + 1 : 0;
        dirtyAtLastUpdateSectors = dirtySectors;
        decide(dirtySectors, targetSectors, Long.MAX_VALUE);
    }

    /**
     * At each sample: overloaded from {@code earlySectors} on, or once rising long enough; no longer at the target.
     *
     * @return true if writeback should run at the backing device's capability
     */
    boolean sample(long dirtySectors, long targetSectors, long earlySectors) {
        decide(dirtySectors, targetSectors, earlySectors);
        return overloaded;
    }

    private void decide(long dirtySectors, long targetSectors, long earlySectors) {
        if (dirtySectors <= targetSectors) {
            overloaded = false;
            risingUpdates = 0;
        } else if (risingUpdates >= RISING_UPDATES || dirtySectors >= earlySectors) {
            overloaded = true;
        }
    }

    /** The decision of the last sample or update. */
    boolean overloaded() {
        return overloaded;
    }
}

package io.blockcache.engine;

/**
 * How many work units the next recovery slice may do, from what the slices before it cost in loop time (the
 * goal: the loop is not held for more than 10 ms at a time while it replays). A warm slice of 4096 units takes 0.2–0.6
 * ms ({@code bench recovery}), but the first slices of a phase run code the JIT has not compiled yet and took 6–8 ms
 * (docs/BENCHMARKS.md "Recovery"), which left the probe's longest wait at 7–11 ms once a thread of the JIT or GC
 * took a core too. So each phase starts at {@link #UNITS_START}; a slice that took more than {@link #TARGET_NS}
 * sets the next to the units that would have fit the target (at least {@link #UNITS_MIN}); one that took at most half
 * the target lets the next double, up to the maximum.
 *
 * <p>Where time does not move inside a task (a simulated loop), every slice measures 0 and the size climbs to the
 * maximum in a few slices, as before. Thread rule: the loop's thread.
 */
final class SliceSizer {
    /** Loop time a slice aims at: a fifth of the 10 ms bound, room for a preemption on top. */
    static final long TARGET_NS = 2_000_000L;
    /** The size a phase starts at (its code may be cold). */
    static final int UNITS_START = 512;
    /** The fewest units a slice is given, however slow the last one was. */
    static final int UNITS_MIN = 128;

    private final int unitsMax;
    private int next;

    /** @param unitsMax the most units any slice may do (also the size when nothing can be measured) */
    SliceSizer(int unitsMax) {
        this.unitsMax = unitsMax;
        this.next = Math.min(UNITS_START, unitsMax);
    }

    /** Units the next slice may do. */
    int units() {
        return next;
    }

    /** A new phase begins: its code may not be compiled yet, so the next slice is small again. */
    void phaseEntered() {
        next = Math.min(next, Math.min(UNITS_START, unitsMax));
    }

    /** A slice did {@code units} units in {@code elapsedNs} of loop time. */
    void measured(int units, long elapsedNs) {
        if (units <= 0) {
            return; // nothing to scale by (a chunk decode, a phase change)
        }
        if (elapsedNs > TARGET_NS) {
            next = (int) Math.max(UNITS_MIN, Math.min(unitsMax, units * TARGET_NS / elapsedNs));
        } else if (elapsedNs <= TARGET_NS / 2) {
            next = Math.min(unitsMax, next * 2);
        }
    }
}

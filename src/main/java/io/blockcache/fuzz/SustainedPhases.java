package io.blockcache.fuzz;

import io.blockcache.loop.Prng;

/**
 * Which workload segments of a fuzz seed are sustained-overload phases (docs/WRITEBACK.md "Sustained writes"): in such
 * a segment every volume's requests are plain random writes over its whole range ({@code
 * WorkloadGenerator.sustain}), so dirty data outgrows the target, writeback runs at full speed, the throttle holds
 * writers and the occupancy cutoff and the out-of-room path are reached — while crashes and faults strike as in any
 * segment. Drawn from a stream of its own, so a seed keeps every earlier draw.
 *
 * <p>Thread rule: the fuzz's thread. Pure function of the seed.
 */
final class SustainedPhases {
    /** Share of segments that are sustained-overload phases. */
    static final double CHANCE = 0.3;

    private SustainedPhases() {
    }

    /**
     * Per segment (index 0 = segment 1), whether it is a sustained-overload phase; all false for a generator that
     * does not draw them.
     */
    static boolean[] draw(long seed, int segments, FuzzGenerator generator) {
        boolean[] sustained = new boolean[segments];
        if (!generator.drawsSustainedPhases) {
            return sustained;
        }
        Prng prng = new Prng(seed * 0x9E3779B97F4A7C15L + 13); // 11 and 12: the disk-full draws
        for (int s = 0; s < segments; s++) {
            sustained[s] = prng.chance(CHANCE);
        }
        return sustained;
    }
}

package io.blockcache.fuzz;

import io.blockcache.loop.Prng;
import io.blockcache.writeback.WritebackOrdering;

/**
 * Switches a volume's {@code writeback.NAME.ordering} live, as an operator may (the knob is live, and the
 * dirty data already there then has no known order). Draws from its own stream, from the seed, so that every other
 * draw of a seed keeps its value; off for the generator of the regression seeds ({@code drawOrdering} false), whose
 * runs must stay as they were found. Thread rule: the scenario's thread.
 */
final class OrderingSwitches {
    /** Chance per control slot (64 loop events) of a switch, in seeds that switch: one or two per seed. */
    private static final double SWITCH_CHANCE = 0.03;
    /** Share of seeds that switch at all: the others keep their ordering for the whole run (strict across restarts). */
    private static final double SEEDS_THAT_SWITCH = 0.5;

    private final FuzzCacheSet cacheSet;
    private final int volumeCount;
    private final Prng prng;
    private final FuzzTrace trace;
    private final boolean enabled;
    private long switches;

    OrderingSwitches(FuzzCacheSet cacheSet, int volumeCount, Prng prng, FuzzTrace trace, boolean drawOrdering) {
        this.cacheSet = cacheSet;
        this.volumeCount = volumeCount;
        this.prng = prng;
        this.trace = trace;
        this.enabled = drawOrdering && prng.chance(SEEDS_THAT_SWITCH);
    }

    /** Maybe switches one volume's ordering now; returns the volume switched, or -1. */
    int maybeSwitch() {
        if (!enabled || cacheSet.set() == null || !prng.chance(SWITCH_CHANCE)) {
            return -1;
        }
        int v = prng.nextInt(volumeCount);
        String name = FuzzSetup.volumeName(v);
        if (cacheSet.set().writeback(name).settings().ordering() == WritebackOrdering.JOURNALED) {
            return -1; // set in the configuration, like ordering=journaled in production: not switched live
        }
        boolean ordered = cacheSet.set().writeback(name).settings().ordering() == WritebackOrdering.EPOCHS;
        String knob = "writeback." + name + ".ordering";
        String value = ordered ? "none" : "epochs";
        trace.add("control: set " + knob + " " + value);
        cacheSet.setKnob(knob, value);
        switches++;
        return v;
    }

    /** Switches made. */
    long switches() {
        return switches;
    }
}

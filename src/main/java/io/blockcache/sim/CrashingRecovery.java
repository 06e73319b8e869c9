package io.blockcache.sim;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.util.function.Consumer;

/**
 * A recovery that may itself lose power: starts it, and up to {@code nestedCrashesMax} times, with
 * {@code chance}, cuts the power at a random event of it, drawn below the length of the last complete recovery
 * (bounded by {@code eventsMax}) so that the cut lands inside the recovery however few events it takes. Shared
 * by the crash harness ({@link CrashScenario}) and the fuzz. Thread rule: the simulation driver's thread.
 */
public final class CrashingRecovery {
    private final SimLoop loop;
    private final LoopRunner runner;
    private final Prng prng;
    private final int nestedCrashesMax;
    private final double chance;
    private final long eventsMax;
    private long lastRecoveryEvents;

    /**
     * @param eventsMax a nested cut comes within this many loop events of the recovery's start
     */
    public CrashingRecovery(SimLoop loop, LoopRunner runner, Prng prng, int nestedCrashesMax, double chance,
                            long eventsMax) {
        this.loop = loop;
        this.runner = runner;
        this.prng = prng;
        this.nestedCrashesMax = nestedCrashesMax;
        this.chance = chance;
        this.eventsMax = eventsMax;
        this.lastRecoveryEvents = eventsMax;
    }

    /**
     * Recovers: {@code start} begins one attempt (power on and open) and calls back with its outcome;
     * {@code crash} cuts the power in the middle of one. Returns the outcome of the attempt that completed.
     *
     * @return the completed recovery's result (OK or the error it ended with)
     */
    public IoResult run(Consumer<IoCallback> start, Runnable crash) {
        for (int attempt = 0; ; attempt++) {
            IoResult[] result = {null};
            long startEvents = loop.eventsRun();
            start.accept(r -> result[0] = r);
            if (attempt < nestedCrashesMax && prng.chance(chance)) {
                runner.runAtMost(prng.nextLong(Math.min(eventsMax, lastRecoveryEvents + 1)), () -> result[0] != null);
                if (result[0] == null) {
                    crash.run();
                    continue;
                }
            }
            runner.runUntil(() -> result[0] != null, "recovery");
            if (result[0].ok()) {
                lastRecoveryEvents = loop.eventsRun() - startEvents;
            }
            return result[0];
        }
    }
}

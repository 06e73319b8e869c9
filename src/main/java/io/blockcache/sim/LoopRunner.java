package io.blockcache.sim;

import io.blockcache.loop.SimLoop;
import java.util.function.BooleanSupplier;

/**
 * Runs a {@link SimLoop} until something awaited happens, with a bound: an engine with periodic timers never
 * goes idle, so "run until idle" is not an option, and a request that never completes must fail the run
 * instead of hanging it. Thread rule: the simulation driver's thread.
 */
public final class LoopRunner {
    private final SimLoop loop;
    private final long stallEventsMax;
    private final WorkloadDriver driver;

    public LoopRunner(SimLoop loop, long stallEventsMax, WorkloadDriver driver) {
        this.loop = loop;
        this.stallEventsMax = stallEventsMax;
        this.driver = driver;
    }

    /** Runs events until {@code condition} holds; fails if the loop empties or the bound is spent first. */
    public void runUntil(BooleanSupplier condition, String what) {
        long budget = stallEventsMax;
        while (!condition.getAsBoolean()) {
            if (!loop.step()) {
                throw driver.violation(what, "nothing left to run but it never completed (lost callback?)");
            }
            if (--budget == 0) {
                throw driver.violation(what, "still not done after " + stallEventsMax + " loop events");
            }
        }
    }

    /** Runs at most {@code events} events, stopping early if {@code stop} holds or nothing is pending. */
    public void runAtMost(long events, BooleanSupplier stop) {
        for (long i = 0; i < events && !stop.getAsBoolean(); i++) {
            if (!loop.step()) {
                return;
            }
        }
    }
}

package io.blockcache.sim;

import io.blockcache.loop.SimLoop;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * Runs a {@link SimLoop} until something awaited happens, with a bound: an engine with periodic timers never
 * goes idle, so "run until idle" is not an option, and a request that never completes must fail the run
 * instead of hanging it. Thread rule: the simulation driver's thread.
 */
public final class LoopRunner {
    private final SimLoop loop;
    private final long stallEventsMax;
    private final BiFunction<String, String, ContractViolation> violation;

    /** A runner whose failures name {@code driver}'s seed and phase. */
    public LoopRunner(SimLoop loop, long stallEventsMax, WorkloadDriver driver) {
        this(loop, stallEventsMax, driver::violation);
    }

    /**
     * A runner whose failures are built by {@code violation} from what was awaited and what went wrong (for runs
     * without a workload driver, such as crash-point enumeration).
     */
    public LoopRunner(SimLoop loop, long stallEventsMax, BiFunction<String, String, ContractViolation> violation) {
        this.loop = loop;
        this.stallEventsMax = stallEventsMax;
        this.violation = violation;
    }

    /** Runs events until {@code condition} holds; fails if the loop empties or the bound is spent first. */
    public void runUntil(BooleanSupplier condition, String what) {
        long budget = stallEventsMax;
        while (!condition.getAsBoolean()) {
            if (!loop.step()) {
                throw violation.apply(what, "nothing left to run but it never completed (lost callback?)");
            }
            if (--budget == 0) {
                throw violation.apply(what, "still not done after " + stallEventsMax + " loop events");
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

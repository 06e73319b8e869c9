package io.blockcache.fuzz;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.Prng;
import io.blockcache.writeback.DrainJob;
import io.blockcache.writeback.DrainLimits;
import io.blockcache.writeback.DrainRefused;
import io.blockcache.writeback.DrainState;
import io.blockcache.writeback.Writeback;
import java.util.function.BiFunction;

/**
 * Steers drain jobs as an operator does (docs/WRITEBACK.md "Drain jobs"): starts one with a rate
 * cap, pauses, resumes and cancels it, and after every open takes up the job the previous incarnation had, paused or
 * not, as {@code serve} restores its saved jobs ({@code Writeback.restoreDrain}). So paused writeback, capped passes,
 * cancellations and restored jobs meet crashes, faults and epoch ordering, and a drain that never ends is caught as
 * a stall. Draws from its own stream, from the seed, so that every other draw of a seed keeps its value; off for the
 * generators before 2026-12-02. Thread rule: the scenario's thread.
 */
final class DrainJobControls {
    /** Chance per control slot (64 loop events) of starting a job, in seeds that steer drains. */
    private static final double START_CHANCE = 0.02;
    /** Chance per control slot of pausing, resuming or cancelling a job while one is active. */
    private static final double STEER_CHANCE = 0.1;
    /** Share of seeds that steer drains at all. */
    private static final double SEEDS_THAT_STEER = 0.5;
    /** Rate caps drawn for a job, bytes per second (0: none): from a few seconds for a volume's range to none. */
    private static final long[] RATE_CAPS = {0, 64 << 10, 1 << 20};

    private final FuzzCacheSet cacheSet;
    private final int volumeCount;
    private final Prng prng;
    private final FuzzTrace trace;
    private final BiFunction<String, Throwable, FuzzViolation> violation;
    private final boolean enabled;
    // Per volume, the job the operator last started and has not seen end: its limits (null: none) and whether it
    // was left paused. A power cut or restart keeps them, as serve's drain job file does.
    private final DrainLimits[] limits;
    private final boolean[] paused;
    private long incarnation;
    private int jobsOutstanding;
    private boolean failuresAllowed;
    private long actions;

    DrainJobControls(FuzzCacheSet cacheSet, int volumeCount, Prng prng, FuzzTrace trace,
                     BiFunction<String, Throwable, FuzzViolation> violation, boolean drawn) {
        this.cacheSet = cacheSet;
        this.volumeCount = volumeCount;
        this.prng = prng;
        this.trace = trace;
        this.violation = violation;
        this.enabled = drawn && prng.chance(SEEDS_THAT_STEER);
        this.limits = new DrainLimits[volumeCount];
        this.paused = new boolean[volumeCount];
    }

    /** Maybe starts, pauses, resumes or cancels one volume's job now. */
    void maybeAct() {
        if (!enabled || cacheSet.set() == null) {
            return;
        }
        int active = activeVolume();
        if (active < 0 ? !prng.chance(START_CHANCE) : !prng.chance(STEER_CHANCE)) {
            return;
        }
        actions++;
        int v = active >= 0 ? active : prng.nextInt(volumeCount);
        Writeback writeback = cacheSet.set().writeback(FuzzSetup.volumeName(v));
        if (active < 0) {
            start(v, writeback, DrainLimits.ofBytes(RATE_CAPS[prng.nextInt(RATE_CAPS.length)],
                    DrainLimits.NO_DEADLINE));
            return;
        }
        switch (prng.nextInt(4)) {
            case 0, 1 -> {
                trace.add("control: pause drain of " + FuzzSetup.volumeName(v));
                writeback.pauseDrain();
                paused[v] = true;
            }
            case 2 -> {
                trace.add("control: resume drain of " + FuzzSetup.volumeName(v));
                writeback.resumeDrain();
                paused[v] = false;
            }
            default -> {
                trace.add("control: cancel drain of " + FuzzSetup.volumeName(v));
                limits[v] = null; // before the callbacks: the job's end is expected now
                paused[v] = false;
                writeback.cancelDrain();
            }
        }
    }

    /** The first volume with an active drain job not yet finishing (whoever started it), or -1. */
    private int activeVolume() {
        for (int v = 0; v < volumeCount; v++) {
            DrainJob job = cacheSet.set().writeback(FuzzSetup.volumeName(v)).drainJob();
            if (job != null && job.state().active() && !job.finishing()) {
                return v;
            }
        }
        return -1;
    }

    /** A new incarnation is up: takes up each volume's job as the operator left it (serve restores saved jobs). */
    void noteOpened() {
        incarnation++;
        jobsOutstanding = 0;
        if (!enabled) {
            return;
        }
        for (int v = 0; v < volumeCount; v++) {
            if (limits[v] != null && cacheSet.attached(v)) {
                trace.add("control: restore drain of " + FuzzSetup.volumeName(v) + (paused[v] ? " (paused)" : ""));
                int volume = v;
                DrainLimits wanted = limits[v];
                long started = watch();
                cacheSet.set().writeback(FuzzSetup.volumeName(v)).restoreDrain(wanted, paused[v], progress -> { },
                        result -> ended(volume, started, wanted, result));
            }
        }
    }

    /**
     * Before the set stops or the final drain joins the jobs: resumes every paused one (a paused job holds writeback,
     * so a drain that joins it would wait for ever), then waits until every job has ended.
     */
    void settle(io.blockcache.sim.LoopRunner runner) {
        for (int v = 0; v < volumeCount && cacheSet.set() != null; v++) {
            Writeback writeback = cacheSet.set().writeback(FuzzSetup.volumeName(v));
            // Whoever started it: a plain drain of the other controls that was paused here holds writeback too.
            if (writeback.drainJob() != null && writeback.drainJob().state() == DrainState.PAUSED) {
                trace.add("control: resume drain of " + FuzzSetup.volumeName(v) + " (settling)");
                writeback.resumeDrain();
            }
            paused[v] = false;
        }
        runner.runUntil(() -> jobsOutstanding == 0, "drain jobs to end");
    }

    /** While faults are injected a job may end with a writeback error without breaking the run. */
    void allowFailures(boolean allowed) {
        this.failuresAllowed = allowed;
    }

    /** True if this seed steers drain jobs (and so may cancel a drain the other controls started). */
    boolean enabled() {
        return enabled;
    }

    /** Actions taken. */
    long actions() {
        return actions;
    }

    private void start(int v, Writeback writeback, DrainLimits wanted) {
        String name = FuzzSetup.volumeName(v);
        trace.add("control: start drain job of " + name + " at most " + wanted.rateMaxBytesPerSecond() + " B/s");
        limits[v] = wanted;
        paused[v] = false;
        long started = watch();
        try {
            writeback.drain(wanted, progress -> { }, result -> ended(v, started, wanted, result));
        } catch (DrainRefused e) {
            throw violation.apply("a drain without a deadline was refused: " + e.getMessage(), e);
        }
    }

    /** Counts one more job outstanding (until {@link #ended}); returns the incarnation it belongs to. */
    private long watch() {
        jobsOutstanding++;
        return incarnation;
    }

    private void ended(int v, long started, DrainLimits wanted, IoResult result) {
        if (started != incarnation) {
            return; // from before a power cut
        }
        jobsOutstanding--;
        trace.add("control: drain job of " + FuzzSetup.volumeName(v) + " ended: " + result);
        boolean cancelled = limits[v] != wanted; // the operator cancelled it (or started another since)
        if (limits[v] == wanted) {
            limits[v] = null; // done, failed or cancelled: nothing to restore
            paused[v] = false;
        }
        if (!result.ok() && !cancelled && !(failuresAllowed && result.status() == IoStatus.IO_ERROR)) {
            throw violation.apply("drain job of " + FuzzSetup.volumeName(v) + " ended unasked: " + result, null);
        }
    }
}

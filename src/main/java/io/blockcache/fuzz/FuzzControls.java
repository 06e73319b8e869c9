package io.blockcache.fuzz;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.sim.LoopRunner;
import io.blockcache.volume.Volume;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * The live actions a fuzz seed takes between requests, as an operator would: switch a volume's cache mode,
 * pause or resume writeback, change its policy or the sequential cutoff, start a drain, a checkpoint or a GC.
 * Asynchronous actions are tracked so that a clean shutdown waits for them and a power cut forgets them; one
 * that fails while the cache set is up breaks the run. Thread rule: the scenario's thread.
 */
final class FuzzControls {
    private static final String[] MODES = {"writeback", "writethrough", "writearound", "none"};

    private final FuzzCacheSet cacheSet;
    private final FuzzSetup setup;
    private final Prng prng;
    private final FuzzTrace trace;
    private final BiFunction<String, Throwable, FuzzViolation> violation;
    private final Set<String> modesCovered = new TreeSet<>();
    private long incarnation;
    private boolean drainsMayBeCancelled;
    private boolean failuresAllowed;
    private int outstanding;
    private long actions;

    FuzzControls(FuzzCacheSet cacheSet, FuzzSetup setup, Prng prng, FuzzTrace trace,
                 BiFunction<String, Throwable, FuzzViolation> violation) {
        this.cacheSet = cacheSet;
        this.setup = setup;
        this.prng = prng;
        this.trace = trace;
        this.violation = violation;
    }

    /** A new incarnation of the cache set is up: note the modes its volumes start in. */
    void noteOpened() {
        incarnation++;
        outstanding = 0;
        for (int v = 0; v < setup.volumeCount(); v++) {
            if (cacheSet.attached(v)) { // not after a power cut between a volume's removal and its return
                modesCovered.add(mode(cacheSet.volume(v)));
            }
        }
    }

    /** The power went out: asynchronous actions in flight will never answer. */
    void abandon() {
        incarnation++;
        outstanding = 0;
    }

    /**
     * The seed steers drain jobs too ({@link DrainJobControls}): a drain started here may join a job the operator
     * then cancels, and so end with the cancellation.
     */
    void drainsMayBeCancelled(boolean may) {
        this.drainsMayBeCancelled = may;
    }

    /** While faults are injected an action may fail without breaking the run. */
    void allowFailures(boolean allowed) {
        this.failuresAllowed = allowed;
    }

    /** Waits until every asynchronous action has answered. */
    void quiesce(LoopRunner runner) {
        runner.runUntil(() -> outstanding == 0, "control actions to finish");
    }

    /** Takes an action with the seed's control chance. */
    void maybeAct() {
        if (!prng.chance(setup.controlChance())) {
            return;
        }
        actions++;
        int v = prng.nextInt(setup.volumeCount());
        String name = FuzzSetup.volumeName(v);
        switch (prng.nextInt(8)) {
            case 0, 1 -> {
                String mode = MODES[prng.nextInt(MODES.length)];
                set("volume." + name + ".mode", mode);
                modesCovered.add(mode);
            }
            case 2 -> set("writeback." + name + ".running", prng.chance(0.7) ? "true" : "false");
            case 3 -> set("writeback." + name + ".policy", prng.chance(0.7) ? "modern" : "classic");
            case 4 -> set("volume." + name + ".sequential_cutoff_bytes", prng.chance(0.5) ? "131072" : "0");
            case 5 -> async("drain " + name, done -> cacheSet.set().drain(name, progress -> { }, done::complete));
            case 6 -> async("checkpoint", done -> cacheSet.set().checkpoint(done::complete));
            default -> async("gc", done -> cacheSet.set().gc(done::complete));
        }
    }

    /** Cache modes some volume ran in, by knob value. */
    Set<String> modesCovered() {
        return Set.copyOf(modesCovered);
    }

    /** Actions taken. */
    long actions() {
        return actions;
    }

    private void set(String knob, String value) {
        trace.add("control: set " + knob + " " + value);
        cacheSet.setKnob(knob, value);
    }

    private void async(String what, java.util.function.Consumer<io.blockcache.device.IoCallback> action) {
        trace.add("control: start " + what);
        long started = incarnation;
        outstanding++;
        action.accept(result -> answered(started, what, result));
    }

    private void answered(long started, String what, IoResult result) {
        if (started != incarnation) {
            return; // from before a power cut
        }
        outstanding--;
        trace.add("control: " + what + " done: " + result);
        boolean cancelled = drainsMayBeCancelled && what.startsWith("drain ")
                && result.status() == io.blockcache.device.IoStatus.CLOSED;
        if (!result.ok() && !failuresAllowed && !cancelled) {
            throw violation.apply("control action " + what + " failed: " + result, null);
        }
    }

    private static String mode(Volume volume) {
        return volume.mode().name().toLowerCase(Locale.ROOT);
    }
}

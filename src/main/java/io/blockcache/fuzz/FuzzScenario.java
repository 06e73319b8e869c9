package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.ContractViolation;
import io.blockcache.sim.CrashingRecovery;
import io.blockcache.sim.LoopRunner;
import io.blockcache.sim.RangeVerifier;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.WorkloadDriver;
import io.blockcache.sim.WorkloadGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One fuzz seed, a pure function of it: draw a {@link FuzzSetup}, format, then per segment run every volume's
 * workload together with live control actions ({@link FuzzControls}); end the segment in a power cut at a
 * random event (recovering with further cuts at random points of the recovery) or in a clean shutdown and
 * restart; after each recovery check every volume against its reference model (oracle a: nothing flushed or
 * FUA is lost; d: no sector holds bytes never written to it) and against its backing device ({@link
 * CleanCopyOracle}: oracles b and c). The last segment runs crash-free and ends in a drain of every volume,
 * after which each must read exactly as its backing device.
 *
 * <p>A broken oracle, a failed request or an engine fail-stop throws {@link FuzzViolation} with the seed, the
 * setup, the last lines of the trace and the command that replays it. Thread rule: the calling thread.
 */
public final class FuzzScenario {
    /** Loop events between two control slots. */
    private static final int CONTROL_SLOT_EVENTS = 64;
    /** Chance that a segment ends in a clean shutdown rather than a power cut. */
    private static final double CLEAN_RESTART_CHANCE = 0.2;
    /** Power cuts injected into one recovery at most. */
    private static final int NESTED_CRASHES_MAX = 2;
    /** A nested cut lands within this many events of the recovery's start. */
    private static final int RECOVERY_CRASH_EVENTS_MAX = 400;
    /** Loop events a single awaited thing may take before the run counts as stalled. */
    private static final long STALL_EVENTS_MAX = 5_000_000;

    private final long seed;
    private final Prng prng;
    private final SimLoop loop = new SimLoop();
    private final FuzzSetup setup;
    private final FuzzCacheSet cacheSet;
    private final FuzzTrace trace = new FuzzTrace();
    private final List<ReferenceModel> models = new ArrayList<>();
    private final List<WorkloadDriver> drivers = new ArrayList<>();
    private final List<WorkloadGenerator> generators = new ArrayList<>();
    /** Per segment, whether it is a sustained-overload phase ({@link SustainedPhases}). */
    private final boolean[] sustainedSegments;
    private final List<RangeVerifier> verifiers = new ArrayList<>();
    private final LoopRunner runner;
    private final FuzzControls controls;
    /** When the cache's file system fills and frees ({@link FuzzCacheSet#maybeToggleCacheDiskFull}): its own stream. */
    private final Prng diskFullFate;
    private final FuzzWatch watch;
    private int crashes;
    private int nestedCrashes;
    private int cleanRestarts;
    private final CrashingRecovery recovery;
    private final PrefixOracle prefixOracle;
    private final OrderingSwitches orderingSwitches;
    private final DrainJobControls drainJobs;
    private final DamageChecks damage;
    private final VolumeChurn churn;

    private FuzzScenario(long seed, FuzzWatch watch, UnaryOperator<BlockDevice> backingSabotage,
                         FuzzGenerator generator) {
        this.seed = seed;
        this.watch = watch;
        this.prng = new Prng(seed);
        this.setup = drawSetup(seed, prng.split(), generator);
        this.cacheSet = new FuzzCacheSet(loop, setup, prng.split(), seed * 0x9E3779B97F4A7C15L + 1,
                generator.faultsMaps ? seed * 0x9E3779B97F4A7C15L + 5 : null, seed * 0x9E3779B97F4A7C15L + 7, watch,
                trace, backingSabotage);
        long sectors = setup.rangeBytes() / BlockDevice.SECTOR_BYTES;
        for (int v = 0; v < setup.volumeCount(); v++) {
            ReferenceModel model = new ReferenceModel(sectors);
            WorkloadGenerator workload = new WorkloadGenerator(prng.split(), setup.rangeBytes(),
                    setup.streamChance());
            generators.add(workload);
            WorkloadDriver driver = new WorkloadDriver(new VolumeLane(cacheSet, v), model, workload, 8, seed);
            String lane = FuzzSetup.volumeName(v) + " ";
            driver.trace(line -> trace.add(lane + line));
            models.add(model);
            drivers.add(driver);
        }
        this.runner = new LoopRunner(loop, STALL_EVENTS_MAX, drivers.get(0));
        for (int v = 0; v < setup.volumeCount(); v++) {
            verifiers.add(new RangeVerifier(models.get(v), drivers.get(v), runner));
        }
        // Its own stream, from the seed, so that the damage-map oracle shifts no other draw of the run.
        this.damage = new DamageChecks(cacheSet, models, setup.rangeBytes(), runner,
                new Prng(seed * 0x9E3779B97F4A7C15L + 2), this::violation);
        this.recovery = new CrashingRecovery(loop, runner, prng, NESTED_CRASHES_MAX, 0.4, RECOVERY_CRASH_EVENTS_MAX);
        this.controls = new FuzzControls(cacheSet, setup, prng.split(), trace, this::violation);
        this.diskFullFate = new Prng(seed * 0x9E3779B97F4A7C15L + 12);
        // Its own stream, from the seed: checking changes nothing, and drawing must not shift the other draws.
        this.prefixOracle = new PrefixOracle(cacheSet, models, drivers, new Prng(seed * 0x9E3779B97F4A7C15L + 2));
        // Its own stream too: live ordering switches must not shift any earlier draw of a seed.
        this.orderingSwitches = new OrderingSwitches(cacheSet, setup.volumeCount(),
                new Prng(seed * 0x9E3779B97F4A7C15L + 3), trace, generator.drawsOrdering);
        // Its own stream too: steering drain jobs (2026-12-02) must not shift any earlier draw of a seed.
        this.drainJobs = new DrainJobControls(cacheSet, setup.volumeCount(), new Prng(seed * 0x9E3779B97F4A7C15L + 8),
                trace, this::violation, generator.steersDrainJobs);
        controls.drainsMayBeCancelled(drainJobs.enabled());
        this.sustainedSegments = SustainedPhases.draw(seed, setup.segments(), generator);
        this.churn = new VolumeChurn(cacheSet, setup, seed, generator, trace, runner, this::violation);
    }

    /** Whether seed {@code seed} removes and adds volumes live under {@code generator} ({@link VolumeChurn}). */
    static boolean churnsVolumes(long seed, FuzzGenerator generator) {
        FuzzSetup setup = setupOf(seed, generator);
        return new VolumeChurn(null, setup, seed, generator, null, null, null).enabled();
    }

    /** What seed {@code seed} runs against under {@code generator} (tests look at the draws). */
    static FuzzSetup setupOf(long seed, FuzzGenerator generator) {
        return drawSetup(seed, new Prng(seed).split(), generator);
    }

    /** The seed's setup: {@code first} is the scenario stream's first split, each later dimension its own stream. */
    private static FuzzSetup drawSetup(long seed, Prng first, FuzzGenerator generator) {
        FuzzSetup drawn = FuzzSetup.draw(first, generator.drawsOrdering);
        if (generator.drawsMapPlacement) {
            drawn = drawn.withMapPlacement(new Prng(seed * 0x9E3779B97F4A7C15L + 4));
        }
        if (generator.drawsObjectStores) {
            drawn = drawn.withObjectStores(new Prng(seed * 0x9E3779B97F4A7C15L + 6));
        }
        if (generator.drawsTableKnobs) {
            // Before the backing logs: withJournaled then sets ordering=journaled on the volumes that have one.
            drawn = drawn.withTableKnobs(new Prng(seed * 0x9E3779B97F4A7C15L + 10));
        }
        if (generator.drawsJournaled) {
            drawn = drawn.withJournaled(new Prng(seed * 0x9E3779B97F4A7C15L + 9), generator.journalsObjectStores);
        }
        if (generator.drawsDiskFull) {
            drawn = drawn.withFaults(drawn.faults().withDiskFull(new Prng(seed * 0x9E3779B97F4A7C15L + 11)));
        }
        return drawn;
    }

    /**
     * Runs seed {@code seed} with every open forgetting the epochs recovery restored (the planted bug the strict
     * prefix oracle must catch: it is how restarts behaved before epochs were persisted).
     */
    public static FuzzResult runForgettingRecoveredEpochs(long seed) {
        FuzzScenario scenario = new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.CURRENT);
        scenario.cacheSet.plantForgetRecoveredEpochs();
        return scenario.runReporting();
    }

    /**
     * Runs seed {@code seed} with every live volume removal discarding the volume's dirty data instead of draining it
     * (the planted bug the verifiers must catch after a volume is added again).
     */
    public static FuzzResult runDiscardingDirtyOnChurn(long seed) {
        FuzzScenario scenario = new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.CURRENT);
        scenario.churn.plantDiscardDirty();
        return scenario.runReporting();
    }

    /** Runs seed {@code seed}; throws {@link FuzzViolation} if any oracle breaks. */
    public static FuzzResult run(long seed) {
        return run(seed, null);
    }

    /** Runs seed {@code seed}, tracing the backing device's requests on {@code watch} (null: none). */
    public static FuzzResult run(long seed, FuzzWatch watch) {
        return run(seed, watch, UnaryOperator.identity());
    }

    /**
     * Runs seed {@code seed} with every backing device wrapped by {@code backingSabotage}: how tests plant a bug
     * (a flush that lies, writes that vanish) to show that the oracles catch it.
     */
    public static FuzzResult run(long seed, FuzzWatch watch, UnaryOperator<BlockDevice> backingSabotage) {
        return run(seed, watch, backingSabotage, false);
    }

    /**
     * Runs seed {@code seed}; with {@code plantIgnoreEpochs}, writeback ignores epoch boundaries although the knob
     * says {@code epochs} (the planted bug the prefix oracle must catch).
     */
    public static FuzzResult run(long seed, FuzzWatch watch, UnaryOperator<BlockDevice> backingSabotage,
                                 boolean plantIgnoreEpochs) {
        FuzzScenario scenario = new FuzzScenario(seed, watch, backingSabotage, FuzzGenerator.CURRENT);
        if (plantIgnoreEpochs) {
            scenario.cacheSet.plantIgnoreEpochs();
        }
        return scenario.runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator before epoch ordering drew it ({@code UNORDERED}): no volume gets {@code
     * ordering=epochs}, and everything else is drawn exactly as then. The seeds of {@code FuzzRegressionTest} were
     * found with it.
     */
    public static FuzzResult runUnordered(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.UNORDERED).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator before damage maps were placed drew it ({@code MAPS_ON_BACKING}): {@code
     * ordering} drawn, every damage map on its backing device. The seeds of {@code FuzzRegressionTest} found on
     * 2026-12-01 were found with it.
     */
    public static FuzzResult runWithMapsOnBacking(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.MAPS_ON_BACKING).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator of 2026-12-01 drew it ({@code NO_MAP_FAULTS}): maps placed as drawn, but
     * no faults on the map files. The seeds of {@code FuzzRegressionTest} found on 2026-12-01 were found with it.
     */
    public static FuzzResult runWithoutMapFaults(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.NO_MAP_FAULTS).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator before journaled write-back drew it ({@code NO_JOURNALED}, 2026-12-02 to
     * 2026-12-04): no backing logs; the seeds found then replay as they were found.
     */
    public static FuzzResult runWithoutJournaled(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.NO_JOURNALED).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator of 2026-12-04 drew it ({@code JOURNALED_ON_DISKS}): backing logs on disk
     * and SSD volumes only; the seeds found then replay as they were found.
     */
    public static FuzzResult runJournaledOnDisks(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.JOURNALED_ON_DISKS).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator of 2026-12-04 to 2026-12-07 drew it ({@code JOURNALED_OBJECT_STORES}):
     * the hand-picked knobs of {@link FuzzSetup#draw}, not the knob table's; the seeds found then replay as they were
     * found.
     */
    public static FuzzResult runJournaledObjectStores(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.JOURNALED_OBJECT_STORES)
                .runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator of 2026-12-07, later, drew it ({@code DISK_FULL}): the file system under
     * the cache fills, sustained phases, no volume removed and added live; the seeds found then replay as they were.
     */
    public static FuzzResult runWithoutVolumeChurn(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.DISK_FULL).runReporting();
    }

    /**
     * Runs seed {@code seed} as the knob-table generator of 2026-12-07 drew it ({@code TABLE_KNOBS}): the cache's
     * file system never full; the seeds found then replay as they were found.
     */
    public static FuzzResult runWithTableKnobs(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.TABLE_KNOBS).runReporting();
    }

    /**
     * Runs seed {@code seed} as the generator of 2026-12-02 drew it ({@code NO_OBJECT_STORES}): every backing device a
     * disk or an SSD model, no object store. The seeds of {@code FuzzRegressionTest} found on 2026-12-02 were found
     * with it.
     */
    public static FuzzResult runWithoutObjectStores(long seed) {
        return new FuzzScenario(seed, null, UnaryOperator.identity(), FuzzGenerator.NO_OBJECT_STORES).runReporting();
    }

    private FuzzResult runReporting() {
        try {
            return run();
        } catch (FuzzViolation e) {
            throw e;
        } catch (ContractViolation | IllegalStateException | IllegalArgumentException e) {
            throw violation(e.getMessage(), e);
        }
    }

    private FuzzResult run() {
        phase("start");
        await(cacheSet::start, "format and open");
        controls.noteOpened();
        drainJobs.noteOpened();
        prefixOracle.started();
        for (int segment = 1; segment <= setup.segments(); segment++) {
            boolean sustained = sustainedSegments[segment - 1];
            phase("segment " + segment + (sustained ? ", sustained overload" : ""));
            boolean clean = prng.chance(CLEAN_RESTART_CHANCE);
            armFaults(true);
            for (int v = 0; v < drivers.size(); v++) {
                if (sustained) {
                    generators.get(v).sustain(setup.opsPerSegment());
                }
                drivers.get(v).start(setup.opsPerSegment());
            }
            if (clean) {
                runWithControls(this::allIdle, Long.MAX_VALUE);
                restartCleanly();
            } else {
                long target = completed() + prng.nextInt(setup.opsPerSegment() * drivers.size() + 1);
                runWithControls(() -> completed() >= target || allIdle(), STALL_EVENTS_MAX);
                runner.runAtMost(prng.nextInt(300), () -> false);
                crash();
                phase("recovery after crash " + crashes);
                recover();
            }
            checkAfterRecovery();
            int churned = churn.pick();
            if (churned >= 0) {
                churnVolume(churned);
            }
        }
        if (setup.faults().any()) {
            // The final drain must run on healthy devices: a power cycle clears the faults (and sticky errors).
            crash();
            phase("recovery before the final segment");
            recover();
            checkAfterRecovery();
        }
        phase("final segment");
        for (WorkloadDriver driver : drivers) {
            driver.start(setup.opsPerSegment());
        }
        runWithControls(this::allIdle, Long.MAX_VALUE);
        drainJobs.settle(runner);
        controls.quiesce(runner);
        phase("final drain");
        drainAll();
        phase("final check");
        for (int v = 0; v < drivers.size(); v++) {
            verifiers.get(v).verify(cacheSet.volume(v), false);
            long dirty = cacheSet.volume(v).index().extents().dirtySectors();
            if (dirty != 0) {
                throw violation(FuzzSetup.volumeName(v) + " still holds " + dirty + " dirty sectors after a drain",
                        null);
            }
            checkCleanCopies(v);
        }
        damage.checkClearedAfterDrain();
        long operations = 0;
        for (WorkloadDriver driver : drivers) {
            operations += driver.completed();
        }
        return new FuzzResult(seed, loop.traceHash(), crashes, nestedCrashes, cleanRestarts, operations,
                controls.modesCovered(), cacheSet.checkpoints(), cacheSet.evictedBuckets(), cacheSet.ringWraps(),
                cacheSet.faultsInjected(), cacheSet.mediaFaultsApplied(), cacheSet.checksumCatches(),
                controls.actions(), prefixOracle.checks(), prefixOracle.violationsUnordered(), damage.checks(),
                damage.checksStale(), prefixOracle.checksOfEarlierHistory(), orderingSwitches.switches(),
                damage.checksConsistent(), setup.mapInFile().stream().filter(inFile -> inFile).count(),
                setup.objectStore().stream().filter(store -> store).count(), cacheSet.chunkPasses(),
                drainJobs.actions(), cacheSet.compactedBuckets(),
                setup.logBytes().stream().filter(bytes -> bytes > 0).count(), cacheSet.logGroups(),
                cacheSet.diskFullRefusals(), churn.changes(), churn.cuts(), churn.changesWithLog());
    }

    /** Removes volume {@code v} and adds it again live ({@link VolumeChurn}), then checks every volume. */
    private void churnVolume(int v) {
        drainJobs.settle(runner);
        controls.quiesce(runner);
        armFaults(false);
        phase("remove and add " + FuzzSetup.volumeName(v));
        churn.churn(v, () -> {
            crash();
            phase("recovery after a cut during a volume change");
            recover();
        });
        controls.noteOpened();
        drainJobs.noteOpened();
        checkAfterRecovery();
    }

    /** Runs loop events until {@code done}, giving the controls a slot every few events. */
    private void runWithControls(java.util.function.BooleanSupplier done, long eventsMax) {
        long budget = eventsMax;
        while (!done.getAsBoolean()) {
            long before = loop.eventsRun();
            runner.runAtMost(CONTROL_SLOT_EVENTS, done);
            long ran = loop.eventsRun() - before;
            if (ran == 0 && !done.getAsBoolean()) {
                throw violation("the loop emptied while requests were still outstanding (lost callback?)", null);
            }
            budget -= ran;
            if (budget <= 0 || loop.eventsRun() > STALL_EVENTS_MAX * 4L * (crashes + cleanRestarts + 1)) {
                if (eventsMax != Long.MAX_VALUE) {
                    return; // a bounded run: the crash comes now
                }
                StringBuilder stuck = new StringBuilder();
                for (int v = 0; v < drivers.size(); v++) {
                    stuck.append("; ").append(FuzzSetup.volumeName(v)).append(" in flight: ")
                            .append(drivers.get(v).describeInFlight());
                }
                throw violation("the workload did not finish within its event budget (stalled?)" + stuck, null);
            }
            controls.maybeAct();
            cacheSet.maybeToggleCacheDiskFull(diskFullFate);
            drainJobs.maybeAct();
            int switched = orderingSwitches.maybeSwitch();
            if (switched >= 0) {
                prefixOracle.orderingSwitched(switched);
            }
            String broken = prefixOracle.maybeCheck();
            if (broken != null) {
                throw violation(broken, null);
            }
            damage.maybeCheckLive();
        }
    }

    private void restartCleanly() {
        drainJobs.settle(runner);
        controls.quiesce(runner);
        phase("clean shutdown after segment");
        IoResult[] stopped = {null};
        cacheSet.shutdown(r -> stopped[0] = r);
        runner.runUntil(() -> stopped[0] != null, "clean shutdown");
        if (!stopped[0].ok()) {
            if (!setup.faults().any()) {
                throw violation("clean shutdown failed: " + stopped[0], null);
            }
            // An injected fault failed the shutdown: the operator pulls the plug.
            crash();
            phase("recovery after a failed shutdown");
            recover();
            return;
        }
        for (ReferenceModel model : models) {
            model.flushAcknowledged(model.flushSubmitted()); // a clean shutdown makes everything durable
        }
        cacheSet.planMediaFaults(); // damage to clean cached data while the power is off (with faults on)
        // The process exits and the machine powers off; the crash image must not matter any more.
        cacheSet.crash(prng.split());
        damage.check(true); // everything acknowledged is durable now: the map must cover all the cache still holds
        cacheSet.powerOn();
        cleanRestarts++;
        phase("open after clean shutdown " + cleanRestarts);
        await(cacheSet::open, "open after a clean shutdown");
        controls.noteOpened();
        drainJobs.noteOpened();
    }

    private void armFaults(boolean armed) {
        cacheSet.armFaults(armed);
        controls.allowFailures(armed && setup.faults().any());
        drainJobs.allowFailures(armed && setup.faults().any());
        for (WorkloadDriver driver : drivers) {
            driver.allowFailures(armed && setup.faults().any());
        }
    }

    /** With a watched sector: what the index says of it now, and the journal's durable sequence. */
    private void traceWatchedExtent(String when) {
        if (watch != null && cacheSet.set() != null) {
            trace.add("watched sector " + when + ": " + watch.describe(cacheSet.set()));
        }
    }

    private void crash() {
        traceWatchedExtent("before the power cut");
        trace.add("POWER CUT");
        armFaults(false);
        cacheSet.crash(prng.split());
        damage.check(true);
        for (WorkloadDriver driver : drivers) {
            driver.abandon();
        }
        controls.abandon();
        crashes++;
    }

    /** Recovers, cutting the power again at random events of the recovery up to twice ({@link CrashingRecovery}). */
    private void recover() {
        IoResult result = recovery.run(done -> {
            cacheSet.powerOn();
            cacheSet.open(done);
        }, () -> {
            crash();
            nestedCrashes++;
        });
        if (!result.ok()) {
            throw violation("recovery failed: " + result, null);
        }
        controls.noteOpened();
        drainJobs.noteOpened();
    }

    private void checkAfterRecovery() {
        traceWatchedExtent("after recovery");
        prefixOracle.reopened(); // before the read-back replaces the models' histories
        for (int v = 0; v < drivers.size(); v++) {
            verifiers.get(v).verify(cacheSet.volume(v), true);
            checkCleanCopies(v);
        }
    }

    private void checkCleanCopies(int v) {
        String mismatch = CleanCopyOracle.check(cacheSet.volume(v), setup.rangeBytes(), runner);
        if (mismatch != null) {
            throw violation(FuzzSetup.volumeName(v) + ": a clean copy disagrees with the backing device: "
                    + mismatch, null);
        }
    }

    private void drainAll() {
        for (int v = 0; v < drivers.size(); v++) {
            String name = FuzzSetup.volumeName(v);
            IoResult[] result = {null};
            cacheSet.set().drain(name, progress -> { }, r -> result[0] = r);
            runner.runUntil(() -> result[0] != null, "drain of " + name);
            if (!result[0].ok()) {
                throw violation("drain of " + name + " failed: " + result[0], null);
            }
        }
    }

    private void await(Consumer<IoCallback> action, String what) {
        IoResult[] result = {null};
        action.accept(r -> result[0] = r);
        runner.runUntil(() -> result[0] != null, what);
        if (!result[0].ok()) {
            throw violation(what + " failed: " + result[0], null);
        }
    }

    private boolean allIdle() {
        for (WorkloadDriver driver : drivers) {
            if (!driver.idle()) {
                return false;
            }
        }
        return true;
    }

    private long completed() {
        long total = 0;
        for (WorkloadDriver driver : drivers) {
            total += driver.completed();
        }
        return total;
    }

    private void phase(String name) {
        trace.add("-- " + name);
        for (int v = 0; v < drivers.size(); v++) {
            drivers.get(v).phase(FuzzSetup.volumeName(v) + ", " + name);
        }
    }

    private FuzzViolation violation(String what, Throwable cause) {
        return new FuzzViolation(seed, what, setup.describe(), trace.lines(), cause);
    }
}

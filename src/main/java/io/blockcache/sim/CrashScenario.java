package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * One deterministic model or crash run of a {@link CrashTarget}, a pure function of its seed (docs/ARCHITECTURE.md §2):
 * start the target, then per segment run a seeded workload checked by a {@link ReferenceModel}; with crashes,
 * cut the power at a random event, recover (cutting it again at random points of the recovery, so that a crash
 * during recovery is just another crash), read the whole range back against the durability contract
 * (docs/ARCHITECTURE.md §5) and adopt it. Every run ends with a crash-free segment and a full read-back.
 *
 * <p>A broken contract throws {@link ContractViolation} naming the seed, phase, step, request and sector.
 * Thread rule: the thread that calls {@link #run}; it owns the loop.
 */
public final class CrashScenario {
    private final long seed;
    private final ScenarioConfig config;
    private final SimLoop loop = new SimLoop();
    private final Prng prng;
    private final CrashTarget target;
    private final ReferenceModel model;
    private final WorkloadDriver driver;
    private final LoopRunner runner;
    private int crashes;
    private int nestedCrashes;
    private final CrashingRecovery recovery;

    /**
     * What a run did; {@code traceHash} is the loop's, for determinism checks; {@code durableSectorsChecked}
     * counts sectors checked after recoveries whose durable value was written data.
     */
    public record Result(long traceHash, int crashes, int nestedCrashes, long requestsCompleted,
                         long durableSectorsChecked) {
    }

    private CrashScenario(long seed, ScenarioConfig config, BiFunction<SimLoop, Prng, CrashTarget> targets) {
        this.seed = seed;
        this.config = config;
        this.prng = new Prng(seed);
        this.target = targets.apply(loop, prng.split());
        this.model = new ReferenceModel(config.rangeBytes() / BlockDevice.SECTOR_BYTES);
        this.driver = new WorkloadDriver(target, model, new WorkloadGenerator(prng.split(), config.rangeBytes()),
                config.depthMax(), seed);
        this.runner = new LoopRunner(loop, config.stallEventsMax(), driver);
        this.recovery = new CrashingRecovery(loop, runner, prng, config.nestedCrashesMax(), 0.5,
                config.recoveryCrashEventsMax());
    }

    /**
     * Runs seed {@code seed} with {@code config} on the target {@code targets} builds from a fresh loop and a
     * seeded generator (for identities).
     */
    public static Result run(long seed, ScenarioConfig config, BiFunction<SimLoop, Prng, CrashTarget> targets) {
        return new CrashScenario(seed, config, targets).run();
    }

    private Result run() {
        driver.phase("start");
        await(target::start, "start of the target");
        RangeVerifier verifier = new RangeVerifier(model, driver, runner);
        for (int segment = 1; segment <= config.segments(); segment++) {
            driver.phase("segment " + segment);
            driver.start(config.opsPerSegment());
            if (!config.crashes()) {
                runner.runUntil(driver::idle, "workload");
                continue;
            }
            long completedTarget = driver.completed() + prng.nextInt(config.opsPerSegment() + 1);
            runner.runAtMost(config.stallEventsMax(), () -> driver.completed() >= completedTarget || driver.idle());
            runner.runAtMost(prng.nextInt(200), () -> false);
            crash();
            driver.phase("recovery after crash " + crashes);
            recover();
            verifier.verify(target.device(), true);
        }
        driver.phase("final segment");
        driver.start(config.opsPerSegment());
        runner.runUntil(driver::idle, "workload");
        driver.phase("final read-back");
        verifier.verify(target.device(), false);
        return new Result(loop.traceHash(), crashes, nestedCrashes, driver.completed(),
                model.durableWrittenSectorsChecked());
    }

    private void crash() {
        target.crash(prng.split());
        driver.abandon();
        crashes++;
    }

    /** Recovers, cutting the power again at random events of the recovery ({@link CrashingRecovery}). */
    private void recover() {
        IoResult result = recovery.run(target::recover, () -> {
            crash();
            nestedCrashes++;
        });
        if (!result.ok()) {
            throw driver.violation("recovery", "failed: " + result);
        }
    }

    private void await(Consumer<IoCallback> action, String what) {
        IoResult[] result = {null};
        action.accept(r -> result[0] = r);
        runner.runUntil(() -> result[0] != null, what);
        if (!result[0].ok()) {
            throw driver.violation(what, "failed: " + result[0]);
        }
    }
}

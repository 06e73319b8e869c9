package io.blockcache.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.CrashScenario;
import io.blockcache.sim.CrashTarget;
import io.blockcache.sim.ScenarioConfig;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The durability contract (docs/ARCHITECTURE.md §5) across crashes, nested ones during recovery
 * too.
 */
class CacheSetCrashTest {
    /** Seeds run by default; more with {@code -Dblockcache.crashSeeds=N}. */
    private static final int CRASH_SEEDS = Integer.getInteger("blockcache.crashSeeds", 500);
    /** A crash may land anywhere in the first 300 events of a recovery (open reads superblocks, journal, ...). */
    private static final int RECOVERY_CRASH_EVENTS_MAX = 300;
    private static final ScenarioConfig CONFIG = ScenarioConfig.crashTest(60, 2, RECOVERY_CRASH_EVENTS_MAX);
    private static final BiFunction<SimLoop, Prng, CrashTarget> CACHE_SET =
            (loop, ids) -> new CacheSetTarget(loop, ids, CacheSetTarget.defaultOptions());
    /** Seeds that once failed, run first by the crash test forever (add the seed from the failure message). */
    private static final List<Long> REGRESSION_SEEDS = List.of();

    @Test
    void flushedAndFuaDataSurvivesEveryCrash() {
        // Proves after each crash + recovery every sector holds its last durable value or a newer submission.
        for (long seed : REGRESSION_SEEDS) {
            CrashScenario.run(seed, CONFIG, CACHE_SET);
        }
        int crashes = 0;
        int nested = 0;
        long durableSectors = 0;
        for (long seed = 1; seed <= CRASH_SEEDS; seed++) {
            CrashScenario.Result result = CrashScenario.run(seed, CONFIG, CACHE_SET);
            crashes += result.crashes();
            nested += result.nestedCrashes();
            durableSectors += result.durableSectorsChecked();
        }
        assertThat(crashes).isGreaterThanOrEqualTo(2 * CRASH_SEEDS);
        assertThat(nested).as("some crashes hit a recovery in progress").isPositive();
        assertThat(durableSectors).as("recoveries were checked against flushed/FUA data, not just zeroes")
                .isGreaterThan(100L * CRASH_SEEDS);
        System.out.printf("crash test: %d seeds, %d crashes (%d during recovery), %d durable sectors checked%n",
                CRASH_SEEDS, crashes, nested, durableSectors);
    }

    @Test
    void oneSeedRunTwiceGivesTheSameTrace() {
        // Proves a cache-set crash run is a pure function of its seed: same seed, same SimLoop trace hash.
        CrashScenario.Result first = CrashScenario.run(7, CONFIG, CACHE_SET);
        CrashScenario.Result second = CrashScenario.run(7, CONFIG, CACHE_SET);
        assertThat(second).isEqualTo(first);
        assertThat(CrashScenario.run(8, CONFIG, CACHE_SET).traceHash()).isNotEqualTo(first.traceHash());
    }
}

package io.blockcache.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.sim.CrashScenario;
import io.blockcache.sim.ScenarioConfig;
import org.junit.jupiter.api.Test;

/** The engine against the reference model in simulated time, without crashes. */
class CacheSetModelTest {
    @Test
    void everyReadOfAVolumeMatchesTheModelOver200Seeds() {
        // Proves reads return the newest acknowledged data (or an in-flight write's), never torn: 200 seeds x 300.
        long completed = 0;
        for (long seed = 1; seed <= 200; seed++) {
            completed += CrashScenario.run(seed, ScenarioConfig.modelTest(150),
                    (loop, ids) -> new CacheSetTarget(loop, ids, CacheSetTarget.defaultOptions())).requestsCompleted();
        }
        assertThat(completed).isEqualTo(200L * 150 * 2); // one segment plus the final one, per seed
    }

    @Test
    void theIndexSelfCheckHoldsUnderTheModelWorkload() {
        // Proves the index's whole-structure check passes after every change on a few model runs.
        for (long seed = 1; seed <= 10; seed++) {
            CrashScenario.run(seed, ScenarioConfig.modelTest(300),
                    (loop, ids) -> new CacheSetTarget(loop, ids,
                            CacheSetTarget.defaultOptions().withVerifyIndex(true)));
        }
    }
}

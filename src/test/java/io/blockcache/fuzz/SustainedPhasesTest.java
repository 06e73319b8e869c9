package io.blockcache.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The sustained-overload phases the fuzz draws ({@link SustainedPhases}). */
class SustainedPhasesTest {
    @Test
    void theCurrentGeneratorDrawsSustainedPhasesAndTheOneBeforeDrawsNone() {
        // Proves the draw: about 30 % of the segments of 200 seeds are sustained-overload phases under CURRENT, none
        // under TABLE_KNOBS, and the setup a seed draws is the same under both but for the disk-full fault, the other
        // dimension CURRENT added (old seeds keep their meaning).
        int segments = 0;
        int sustained = 0;
        for (long seed = 1; seed <= 200; seed++) {
            FuzzSetup setup = FuzzScenario.setupOf(seed, FuzzGenerator.CURRENT);
            FuzzSetup before = FuzzScenario.setupOf(seed, FuzzGenerator.TABLE_KNOBS);
            assertThat(setup.withFaults(before.faults())).isEqualTo(before);
            for (boolean s : SustainedPhases.draw(seed, setup.segments(), FuzzGenerator.CURRENT)) {
                segments++;
                sustained += s ? 1 : 0;
            }
            assertThat(SustainedPhases.draw(seed, setup.segments(), FuzzGenerator.TABLE_KNOBS)).doesNotContain(true);
        }
        assertThat((double) sustained / segments).isBetween(0.2, 0.4);
    }

    @Test
    void seedsWithSustainedPhasesRunCleanThroughCrashes() {
        // Proves the oracles stay clean through sustained-overload phases: the first five seeds that draw one run
        // without a violation (a violation throws), and differ from their run without the phases.
        int run = 0;
        for (long seed = 1; run < 5; seed++) {
            FuzzSetup setup = FuzzScenario.setupOf(seed, FuzzGenerator.CURRENT);
            boolean[] phases = SustainedPhases.draw(seed, setup.segments(), FuzzGenerator.CURRENT);
            boolean any = false;
            for (boolean p : phases) {
                any |= p;
            }
            if (!any) {
                continue;
            }
            FuzzResult with = FuzzScenario.run(seed);
            assertThat(with.traceHash()).isNotEqualTo(FuzzScenario.runWithTableKnobs(seed).traceHash());
            run++;
        }
    }
}

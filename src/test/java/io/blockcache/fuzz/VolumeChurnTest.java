package io.blockcache.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Volumes removed and added again live in the fuzz ({@link VolumeChurn}). */
class VolumeChurnTest {
    @Test
    void aboutAThirdOfTheSeedsChurnAndTheOthersRunAsBefore() {
        // Proves the draw comes from a stream of its own: about 30 % of 300 seeds churn under CURRENT, none under
        // DISK_FULL (the generator before), and a seed that does not churn runs exactly as under DISK_FULL.
        int churning = 0;
        long quiet = -1;
        for (long seed = 1; seed <= 300; seed++) {
            assertThat(FuzzScenario.churnsVolumes(seed, FuzzGenerator.DISK_FULL)).isFalse();
            if (FuzzScenario.churnsVolumes(seed, FuzzGenerator.CURRENT)) {
                churning++;
            } else if (quiet < 0) {
                quiet = seed;
            }
        }
        assertThat(churning).isBetween(60, 120);
        assertThat(FuzzScenario.run(quiet).traceHash())
                .isEqualTo(FuzzScenario.runWithoutVolumeChurn(quiet).traceHash());
    }

    @Test
    void volumesRemovedAndAddedAgainLoseNothingThroughPowerCuts() {
        // Proves the oracles hold through live removes and adds, some cut by a power failure: the churning seeds
        // among the first 60 run without a violation (one throws) and together change volumes, volumes with a backing
        // log among them, refuse removes of volumes holding dirty data, and cut the power during a change.
        long changes = 0;
        long cuts = 0;
        long withLog = 0;
        for (long seed = 1; seed <= 60; seed++) {
            if (!FuzzScenario.churnsVolumes(seed, FuzzGenerator.CURRENT)) {
                continue;
            }
            FuzzResult result = FuzzScenario.run(seed);
            changes += result.volumeChanges();
            cuts += result.volumeChangeCuts();
            withLog += result.volumeChangesWithLog();
        }
        assertThat(changes).isGreaterThan(5);
        assertThat(withLog).as("changes of volumes with a backing log").isPositive();
        assertThat(cuts).isGreaterThan(1);
    }

    @Test
    void aRemoveThatDiscardsDirtyDataIsCaught() {
        // Proves the verifiers see the volume added again: a remove that discards dirty data instead of draining it
        // (the planted bug) breaks an oracle in a seed that churns a volume holding flushed dirty data.
        long caught = 0;
        for (long seed = 1; seed <= 60 && caught == 0; seed++) {
            if (!FuzzScenario.churnsVolumes(seed, FuzzGenerator.CURRENT)) {
                continue;
            }
            long planted = seed;
            try {
                FuzzScenario.runDiscardingDirtyOnChurn(planted);
            } catch (FuzzViolation e) {
                caught = planted;
            }
        }
        assertThat(caught).as("a seed whose planted lossy remove is caught").isPositive();
        long seed = caught;
        assertThatThrownBy(() -> FuzzScenario.runDiscardingDirtyOnChurn(seed)).isInstanceOf(FuzzViolation.class);
        FuzzScenario.run(seed); // the same seed without the plant is clean
    }
}

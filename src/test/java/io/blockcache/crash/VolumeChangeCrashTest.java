package io.blockcache.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.sim.ContractViolation;
import io.blockcache.sim.CrashPointClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Crash-point enumeration of volume changes on a running cache (attach, detach, grow: docs/FORMAT.md §3 "Volumes
 * attached and detached live"): cut at every device-operation boundary of {@link VolumeChangeRun}'s script, keeping
 * none or all of the pending volatile writes, the cache opens with each volume in its old or its new state.
 */
class VolumeChangeCrashTest {
    @Test
    void everyCrashPointOfAttachDetachAndGrowOpensInTheOldOrTheNewState() {
        // Proves for every crash point of the script: recovery succeeds, vol1 is attached iff its attach was
        // acknowledged and its detach was not (either way while one was in progress), vol0 has its old or new size
        // (the new one once the grow was acknowledged), every flushed write reads back, and vol1 can be attached
        // again when it is not.
        CrashPointClock counting = CrashPointClock.counting();
        VolumeChangeRun countRun = new VolumeChangeRun(counting, "counting run");
        countRun.start();
        long opening = counting.boundaries();
        countRun.runScript();
        countRun.crashRecoverAndCheck(true); // the whole script, then a power cut: the new state everywhere
        long boundaries = counting.boundaries() - opening;
        assertThat(boundaries).as("boundaries of the script").isGreaterThan(50);
        List<String> failures = new ArrayList<>();
        long states = 0;
        for (long k = 0; k <= boundaries; k++) {
            for (boolean keep : new boolean[] {false, true}) {
                String label = "crash after boundary " + k + " of " + boundaries + " (" + counting.describe(opening + k)
                        + "), pending writes " + (keep ? "kept" : "lost");
                VolumeChangeRun run = new VolumeChangeRun(CrashPointClock.haltAfter(opening + k), label);
                try {
                    run.start();
                    run.runScript();
                    run.crashRecoverAndCheck(keep);
                } catch (ContractViolation | IllegalStateException e) {
                    if (failures.size() < 20) {
                        failures.add(e.getMessage());
                    }
                }
                states++;
            }
        }
        System.out.printf("volume-change crash points: %d boundaries, %d states%n", boundaries, states);
        assertThat(failures).as("failing crash states").isEmpty();
    }
}

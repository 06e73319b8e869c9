package io.blockcache.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.engine.KnobSpec;
import io.blockcache.engine.KnobTable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fuzz draws its knobs from the knob table (FoundationDB's randomised knobs), and seeds found with the
 * generator before keep their meaning.
 */
class FuzzKnobDrawTest {
    private static final int SEEDS = 300;

    @Test
    void everyKnobOfTheTableIsDrawnWithEveryChoice() {
        // Proves the current generator sets every knob the table draws, on every volume, and that across the seeds
        // each of a knob's choices comes up (so a choice the fuzz never reaches cannot hide in the table).
        Map<String, Set<String>> seen = new HashMap<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            FuzzSetup setup = FuzzScenario.setupOf(seed, FuzzGenerator.CURRENT);
            for (KnobSpec spec : KnobTable.all()) {
                if (!spec.draw().drawn()) {
                    continue;
                }
                for (int v = 0; v < (spec.perVolume() ? setup.volumeCount() : 1); v++) {
                    String name = spec.name(FuzzSetup.volumeName(v));
                    assertThat(setup.knobs()).as("seed " + seed).containsKey(name);
                    String value = setup.knobs().get(name);
                    boolean journaled = name.endsWith(".ordering") && value.equals("journaled");
                    assertThat(journaled || spec.draw().choices().contains(value)).as(name + "=" + value).isTrue();
                    seen.computeIfAbsent(spec.pattern(), k -> new HashSet<>()).add(value);
                }
            }
        }
        for (KnobSpec spec : KnobTable.all()) {
            if (spec.draw().drawn()) {
                assertThat(seen.get(spec.pattern())).as(spec.pattern()).containsAll(spec.draw().choices());
            }
        }
    }

    @Test
    void theGeneratorBeforeKeepsItsDrawsAndTheTableChangesOnlyTheKnobs() {
        // Proves the seeds of the generator before the knob table replay as found: it still sets its 17 hand-picked
        // knobs per volume (none the table added), and the table's draw, from a stream of its own, changes no other
        // draw of a seed (geometry, volumes, faults, map placement, object stores, backing logs).
        for (long seed = 1; seed <= SEEDS; seed++) {
            FuzzSetup before = FuzzScenario.setupOf(seed, FuzzGenerator.JOURNALED_OBJECT_STORES);
            FuzzSetup now = FuzzScenario.setupOf(seed, FuzzGenerator.TABLE_KNOBS);
            assertThat(before.knobs()).as("seed " + seed).hasSize(17 * before.volumeCount() + 1)
                    .doesNotContainKey("writeback.vol0.fragment_boost");
            assertThat(now.knobs().size()).isGreaterThan(before.knobs().size());
            assertThat(new Object[] {now.options(), now.cacheBuckets(), now.volumeCount(), now.rangeBytes(),
                now.hddBacking(), now.segments(), now.opsPerSegment(), now.streamChance(), now.controlChance(),
                now.faults(), now.mapInFile(), now.objectStore(), now.logBytes()}).as("seed " + seed)
                    .containsExactly(before.options(), before.cacheBuckets(), before.volumeCount(),
                            before.rangeBytes(), before.hddBacking(), before.segments(), before.opsPerSegment(),
                            before.streamChance(), before.controlChance(), before.faults(), before.mapInFile(),
                            before.objectStore(), before.logBytes());
        }
    }

    @Test
    void theDiskFullDrawChangesOnlyThatFault() {
        // Proves the disk-full dimension, drawn from a stream of its own, leaves every other draw of a seed as the
        // knob-table generator drew it, and that some seeds draw it and some do not.
        int drawn = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            FuzzSetup before = FuzzScenario.setupOf(seed, FuzzGenerator.TABLE_KNOBS);
            FuzzSetup now = FuzzScenario.setupOf(seed, FuzzGenerator.CURRENT);
            assertThat(now.withFaults(before.faults())).as("seed " + seed).isEqualTo(before);
            FuzzFaults faults = now.faults();
            assertThat(new FuzzFaults(faults.backingFlushFailProbability(), faults.backingRequestFailProbability(),
                    faults.cacheFlushFailProbability(), faults.cacheRequestFailProbability(), 0))
                    .isEqualTo(before.faults());
            drawn += faults.cacheDiskFullChance() > 0 ? 1 : 0;
        }
        assertThat(drawn).isBetween(1, SEEDS - 1);
    }

    @Test
    void theDrawnKnobsAreAcceptedByALiveCacheSet() {
        // Proves a few seeds of the current generator run through: every drawn knob is set after every open (a
        // refused one would break the run), with the oracles holding.
        for (long seed = 1; seed <= 3; seed++) {
            assertThat(FuzzScenario.run(seed).seed()).isEqualTo(seed);
        }
    }
}

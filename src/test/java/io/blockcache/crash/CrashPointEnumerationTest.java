package io.blockcache.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crash-point enumeration: every scripted trace ({@link ScriptedTrace#all()}) in every cache mode
 * and both journal delays, cut at every device-operation boundary with every subset of the pending volatile
 * writes, recovers with flushed and FUA data intact and its clean copies equal to the disk (docs/TESTING.md).
 *
 * <p>Cost, measured on the 2-core machine with another build running: about 5,000 crash states in 15 s for the
 * four modes (1 to 3 ms a state: each is a replay from scratch, a recovery and a 1 MiB read-back). What was left
 * out to stay well under a minute: a trace of two whole-volume (1 MiB) writes and a FLUSH, whose 8 cache writes
 * in flight together give up to 11 pending writes and 16,000 states in 41 s for write-back and write-through.
 */
class CrashPointEnumerationTest {
    /** Group commit at once, and bcache's default delay (a commit then waits in the settle period). */
    private static final long[] JOURNAL_DELAYS_NS = {0, TimeUnit.MILLISECONDS.toNanos(100)};

    @ParameterizedTest
    @EnumSource(CacheMode.class)
    void everyCrashStateOfTheScriptedTracesKeepsFlushedDataAndCleanCopies(CacheMode mode) {
        // Proves for each trace, crash point and surviving subset: recovery keeps the contract and clean copies.
        long started = System.nanoTime();
        List<String> failures = new ArrayList<>();
        long boundaries = 0;
        long states = 0;
        long withSurvivors = 0;
        long withLosses = 0;
        long durableSectors = 0;
        int pendingMax = 0;
        for (ScriptedTrace trace : ScriptedTrace.all()) {
            for (long delayNs : JOURNAL_DELAYS_NS) {
                CrashPointEnumerator run = new CrashPointEnumerator(trace, mode, delayNs, false).run();
                assertThat(run.boundaries()).as("%s, delay %d ns: boundaries", trace, delayNs).isPositive();
                failures.addAll(run.failures());
                boundaries += run.boundaries();
                states += run.states();
                withSurvivors += run.statesWithSurvivors();
                withLosses += run.statesWithLosses();
                durableSectors += run.durableWrittenSectorsChecked();
                pendingMax = Math.max(pendingMax, run.pendingMax());
            }
        }
        System.out.printf("crash-point enumeration, %s: %d traces x %d journal delays, %d boundaries, %d crash states "
                        + "(%d with surviving volatile writes, %d with lost ones, at most %d pending), %d durable "
                        + "written sectors checked, %d ms%n", mode, ScriptedTrace.all().size(),
                JOURNAL_DELAYS_NS.length, boundaries, states, withSurvivors, withLosses, pendingMax, durableSectors,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertThat(failures).as("failing crash states (the first %d shown)", failures.size()).isEmpty();
        // Not vacuous: many states, volatile writes both kept and lost, flushed/FUA data checked after recovery.
        assertThat(states).isGreaterThan(300);
        assertThat(withSurvivors).isGreaterThan(100);
        assertThat(withLosses).isGreaterThan(100);
        assertThat(pendingMax).isGreaterThanOrEqualTo(2);
        assertThat(durableSectors).isGreaterThan(10_000);
    }

    @Test
    void everyCrashStateOfAnEpochOrderedVolumeKeepsItsEpochsAndTheBackingDeviceAPrefix() {
        // Proves epoch ordering across crashes: with ordering=epochs, at every crash point and surviving subset, the
        // backing device alone is the volume at some FLUSH boundary, recovery restores every dirty extent's epoch,
        // and writing the recovered data back keeps the backing device a prefix at every step.
        List<String> failures = new ArrayList<>();
        long states = 0;
        long prefixChecks = 0;
        long withEpochs = 0;
        for (ScriptedTrace trace : ScriptedTrace.epochs()) {
            for (long delayNs : JOURNAL_DELAYS_NS) {
                CrashPointEnumerator run = new CrashPointEnumerator(trace, CacheMode.WRITEBACK, delayNs, false, true)
                        .run();
                failures.addAll(run.failures());
                states += run.states();
                prefixChecks += run.prefixChecks();
                withEpochs += run.statesWithEpochsRecovered();
            }
        }
        System.out.printf("crash-point enumeration, ordering=epochs: %d crash states (%d recovered two or more "
                + "epochs of dirty data), %d prefix checks%n", states, withEpochs, prefixChecks);
        assertThat(failures).as("failing crash states (the first %d shown)", failures.size()).isEmpty();
        assertThat(states).isGreaterThan(300);
        assertThat(withEpochs).as("states that recovered several epochs").isGreaterThan(100);
        assertThat(prefixChecks).as("prefix checks: in the power cut and while recovered data is written back")
                .isGreaterThan(states + withEpochs);
    }

    @Test
    void aCacheDeviceThatAcknowledgesFlushesWithoutFlushingIsCaught() {
        // Proves the enumeration can fail: with a lying cache flush, some crash state loses acknowledged data.
        ScriptedTrace trace = ScriptedTrace.all().get(0);
        CrashPointEnumerator run = new CrashPointEnumerator(trace, CacheMode.WRITEBACK, 0, true).run();
        assertThat(run.failed()).isPositive();
        // The engine notices the lost bytes by their checksums and fails the read: a failing state either way.
        assertThat(run.failures()).allSatisfy(failure -> assertThat(failure)
                .contains("crash after trace boundary", "surviving pending writes"));
    }

    @Test
    void manyPendingWritesAreSampledWithNoneAndAllOfThemAmongTheSubsets() {
        // Proves up to 10 pending writes give all 2^n subsets, more a fixed sample that has the empty and full sets.
        assertThat(new HashSet<>(CrashPointEnumerator.subsets(3, new Prng(1)))).hasSize(8);
        List<BitSet> sample = CrashPointEnumerator.subsets(12, new Prng(1));
        BitSet all = new BitSet();
        all.set(0, 12);
        assertThat(sample).hasSize(CrashPointEnumerator.SAMPLED_SUBSETS).contains(new BitSet(), all);
        assertThat(sample).allSatisfy(subset -> assertThat(subset.length()).isLessThanOrEqualTo(12));
        assertThat(CrashPointEnumerator.subsets(12, new Prng(1))).isEqualTo(sample);
    }
}

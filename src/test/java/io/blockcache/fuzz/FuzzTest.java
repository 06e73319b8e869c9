package io.blockcache.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cli.FuzzSeeds;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapGeometry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The adversarial whole-cache simulator ({@code simulate fuzz}) over many seeds in CI, with its
 * coverage asserted so that it cannot pass by doing nothing, and planted bugs it must catch.
 */
class FuzzTest {
    /** Seeds run by default (at least 500 in CI); more with {@code -Dblockcache.fuzzSeeds=N}. */
    private static final int SEEDS = Integer.getInteger("blockcache.fuzzSeeds", 500);
    /** Seeds tried with a planted bug before giving up on catching it. */
    private static final int SABOTAGE_SEEDS = 60;

    @Test
    void everyOracleHoldsAcrossManySeedsAndTheRunCoversEveryPath() throws Exception {
        // Proves 0 violations over SEEDS seeds, with every mode, faults, crashes, clean restarts, evictions,
        // checkpoints and journal ring wraps all present (a fuzz that reaches none of them proves nothing).
        FuzzTotals totals = runSeeds(1, SEEDS, UnaryOperator.identity());
        List<String> failures = new ArrayList<>();
        for (FuzzViolation violation : totals.violations()) {
            failures.add(violation.getMessage() + " (" + violation.replayCommand() + ")");
        }
        assertThat(failures).as("fuzz violations").isEmpty();
        assertThat(totals.seeds()).isEqualTo(SEEDS);
        assertThat(totals.modesCovered()).containsExactlyInAnyOrder("writeback", "writethrough", "writearound", "none");
        assertThat(totals.crashes()).isGreaterThan(SEEDS);
        assertThat(totals.faultsInjected()).isPositive();
        assertThat(totals.mediaFaults()).as("blocks of cached data damaged").isPositive();
        assertThat(totals.checksumCatches()).as("damage caught by the extent checksums").isPositive();
        assertThat(totals.evictions()).isPositive();
        assertThat(totals.compactedBuckets()).as("dirty buckets compacted by moving GC").isPositive();
        assertThat(totals.checkpoints()).isPositive();
        assertThat(totals.ringWraps()).isPositive();
        assertThat(totals.json()).contains("\"cleanRestarts\":").doesNotContain("\"cleanRestarts\":0,");
        // The prefix oracle ran on volumes with ordering=epochs, and is not vacuous: on unordered volumes the
        // backing device alone often matched no FLUSH boundary.
        assertThat(totals.prefixChecks()).as("prefix checks of volumes with epoch ordering").isPositive();
        assertThat(totals.prefixViolationsUnordered()).as("prefix broken by unordered writeback").isPositive();
        // Epochs survive restarts: some checks judged the backing device while recovered epochs were written back,
        // and the ordering knob was switched live in some seeds.
        assertThat(totals.prefixChecksAcrossRestart()).as("prefix checks across a restart").isPositive();
        assertThat(totals.orderingSwitches()).as("live ordering switches").isPositive();
        assertThat(totals.damageChecks()).as("damage-map oracle checks").isGreaterThan(SEEDS);
        assertThat(totals.damageChecksStale()).as("damage-map checks with dirty data at stake").isPositive();
        // Maps in files as well as on the backing devices, and maps flagged consistent,
        // judged by the prefix check.
        assertThat(totals.damageMapFiles()).as("volumes with the map in a file").isPositive();
        assertThat(totals.damageChecksConsistent()).as("checks of a map flagged consistent").isPositive();
        // Object-store backings (the S3 backing's shape): writeback took the chunk path on some of them.
        assertThat(totals.objectStoreVolumes()).as("volumes on an object store").isPositive();
        assertThat(totals.chunkPasses()).as("writeback passes of whole or partial chunks").isPositive();
        // Drain jobs steered as an operator does: capped, paused, resumed, cancelled, restored after restarts.
        assertThat(totals.drainJobActions()).as("drain job actions").isPositive();
        System.out.println(totals.summaryLine());
    }

    @Test
    void oneSeedRunTwiceGivesTheSameRun() {
        // Proves a fuzz run is a pure function of its seed: same seed, same trace hash and counts.
        FuzzResult first = FuzzScenario.run(17);
        assertThat(FuzzScenario.run(17)).isEqualTo(first);
        assertThat(FuzzScenario.run(18).traceHash()).isNotEqualTo(first.traceHash());
    }

    @Test
    void aBackingDeviceWhoseFlushLiesIsCaught() throws Exception {
        // Proves the durability oracle bites: a backing device that acknowledges flushes without flushing loses
        // flushed data in a power cut, and some seed reports it.
        FuzzTotals totals = runSeeds(1, SABOTAGE_SEEDS, LyingFlush::new);
        assertThat(totals.violations()).as("violations with a lying backing flush").isNotEmpty();
    }

    @Test
    void aBackingDeviceThatDropsWritesIsCaught() throws Exception {
        // Proves the clean-copy oracle bites: a backing device that acknowledges one write in 20 without writing
        // it leaves cached or recovered data that disagrees with it, and some seed reports it.
        FuzzTotals totals = runSeeds(1, SABOTAGE_SEEDS, DroppingWrites::new);
        assertThat(totals.violations()).as("violations with dropped backing writes").isNotEmpty();
    }

    @Test
    void writebackThatIgnoresEpochBoundariesIsCaught() throws Exception {
        // Proves the prefix oracle bites: with writeback taking keys of any epoch although the knob says epochs
        // (the front end still holds what it must), the backing device alone matches no FLUSH boundary. Found by the
        // prefix oracle, or by the damage oracle judging a map that says consistent.
        FuzzTotals totals = FuzzSeeds.run(1, SABOTAGE_SEEDS, Long.MAX_VALUE, 2,
                seed -> FuzzScenario.run(seed, null, UnaryOperator.identity(), true), t -> { });
        assertThat(totals.violations()).as("violations with epoch boundaries ignored").isNotEmpty();
        assertThat(totals.violations()).allSatisfy(violation -> assertThat(violation.getMessage())
                .containsAnyOf("is not the volume at any FLUSH boundary", "is the volume at no FLUSH boundary"));
    }

    @Test
    void recoveredDirtyDataWithoutItsEpochsIsCaught() throws Exception {
        // Proves the prefix oracle is strict across restarts: when every open forgets the epochs recovery restored
        // (how restarts behaved before epochs were persisted), an ordered volume holds dirty data of unknown order
        // that no live switch explains, and some seed reports it.
        FuzzTotals totals = FuzzSeeds.run(1, SABOTAGE_SEEDS, Long.MAX_VALUE, 2,
                FuzzScenario::runForgettingRecoveredEpochs, t -> { });
        assertThat(totals.violations()).as("violations with recovered epochs forgotten").isNotEmpty();
        assertThat(totals.violations()).allSatisfy(violation ->
                assertThat(violation.getMessage()).contains("dirty data of unknown order"));
    }

    @Test
    void aDamageMapMarkedAfterTheAckIsCaught() throws Exception {
        // Proves the damage-map oracle bites: a backing device that acknowledges damage-map writes at once, before
        // they are on the device, lets writes be acknowledged before their region is marked; losing the cache
        // (at a random point or in a power cut) then finds stale backing data outside the map.
        FuzzTotals totals = runSeeds(1, SABOTAGE_SEEDS, EarlyMapAck::new);
        assertThat(totals.violations()).as("violations with early-acknowledged map writes").isNotEmpty();
        assertThat(totals.violations()).as("stale backing data found outside the map")
                .anySatisfy(violation -> assertThat(violation.getMessage()).contains("after losing the cache device")
                        .contains("lies outside the damage map"));
    }

    @Test
    void aReplayWithAWatchedSectorTracesWhatTheCacheHeldOfIt() {
        // The replay aid of docs/TESTING.md: with --watch, a violation's trace says what the index held of the
        // sector at each power cut and after each recovery, and how far the journal was durable.
        FuzzWatch watch = new FuzzWatch(0, 8);
        FuzzViolation found = null;
        for (long seed = 1; seed <= SABOTAGE_SEEDS && found == null; seed++) {
            try {
                FuzzScenario.run(seed, watch, LyingFlush::new);
            } catch (FuzzViolation violation) {
                found = violation;
            }
        }
        assertThat(found).as("a seed that breaks with a lying backing flush").isNotNull();
        assertThat(found.trace()).anySatisfy(line -> assertThat(line)
                .matches("watched sector (before the power cut|after recovery): (not cached|.+ \\(bucket now gen "
                        + "\\d+, .+, live \\d+\\)), journal durable through \\d+ of \\d+"));
    }

    /** Runs seeds {@code [first, first + count)} on two threads (the machine's cores). */
    static FuzzTotals runSeeds(long first, int count, UnaryOperator<BlockDevice> sabotage) throws Exception {
        return FuzzSeeds.run(first, count, Long.MAX_VALUE, 2, seed -> FuzzScenario.run(seed, null, sabotage),
                totals -> { });
    }

    /** A planted bug: flushes are acknowledged at once and never reach the device. */
    private static final class LyingFlush extends ForwardingDevice {
        LyingFlush(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void flush(IoCallback callback) {
            inner().write(0, ByteBuffer.allocate(0), false, ignored -> callback.complete(IoResult.OK));
        }
    }

    /**
     * A planted bug: a write to the damage map (between the backing header and the volume's data) is acknowledged
     * at once and reaches the device only afterwards, so the engine believes a mark durable before it is: "mark
     * after ack".
     */
    private static final class EarlyMapAck extends ForwardingDevice {
        EarlyMapAck(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            if (offsetBytes >= DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES
                    && offsetBytes < BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
                inner().flush(ignored -> {
                    callback.complete(IoResult.OK); // acknowledged first ...
                    inner().write(offsetBytes, src, fua, written -> { }); // ... written afterwards
                });
                return;
            }
            inner().write(offsetBytes, src, fua, callback);
        }
    }

    /** A planted bug: every 20th write is acknowledged without being written. */
    private static final class DroppingWrites extends ForwardingDevice {
        private long writes;

        DroppingWrites(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            if (++writes % 20 == 0) {
                inner().flush(ignored -> callback.complete(IoResult.OK)); // completes later, as a real write would
                return;
            }
            inner().write(offsetBytes, src, fua, callback);
        }
    }
}

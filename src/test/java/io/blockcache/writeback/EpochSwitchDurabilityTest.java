package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.DirtyEpochs;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The fuzz's seeds 40725, 41231 and 51661: whenever a volume stops following the epochs it put on record
 * (a live switch of {@code ordering} to {@code none}, or recovered epochs dropped because the volume changed without
 * ordering), the journal records that they are void before anything reaches the backing device out of their order,
 * so that a power cut never restores an order the backing device no longer follows (docs/FORMAT.md §7 rule 15).
 * The first three were checked to fail with the void record taken out ({@code EpochRecord.coarsened} doing nothing);
 * the fourth pins the reverse switch, which needs no record.
 */
class EpochSwitchDurabilityTest {
    private static final long MS = 1_000_000L;
    private static final int BLOCK = 4096;
    /** Simulated time any wait here may take at most: every step below takes milliseconds. */
    private static final long WAIT_NS_MAX = 5_000 * MS;

    @Test
    void aPowerCutRightAfterTheSwitchToNoneLetsWritebackRunLeavesTheRecoveredDataOfUnknownOrder() {
        // Proves the switch is durable before writeback runs unordered: the first unordered backing write (the last
        // epoch, at the lowest LBAs) is issued only once the void record is durable, and a power cut at that very
        // write recovers no epochs. Without the record, recovery restored all three (the fuzz's seed 40725).
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        rig.backingDevice.recording = true;
        Boolean[] pendingAtFirstWrite = {null};
        rig.backingDevice.onRecordedWrite = () -> {
            if (pendingAtFirstWrite[0] == null) {
                pendingAtFirstWrite[0] = rig.volume().index().epochVoidPending();
            }
        };
        rig.tune(b -> b.ordering(WritebackOrdering.NONE).running(true));
        assertThat(rig.volume().index().epochVoidPending()).as("the void record is not durable yet").isTrue();
        assertThat(runUntil(rig, () -> !rig.backingDevice.ops.isEmpty())).as("writeback started").isTrue();
        assertThat(pendingAtFirstWrite[0]).as("void record pending at the first backing write").isFalse();
        long firstWrite = rig.backingDevice.ops.get(0).offsetBytes();
        assertThat(firstWrite).as("unordered: the newest epoch (lowest LBAs) first")
                .isLessThan(rig.volume().backingOffsetBytes(30L * BLOCK / 512));
        assertThat(rig.dirtySectors()).isPositive();

        rig.crashAndReopen(new Prng(8), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).as("one epoch of unknown order, not the three of before the switch")
                .isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
    }

    @Test
    void aSwitchToNoneWhoseVoidRecordCannotBeMadeDurableLeavesWritebackHeldAndTheOrderIntact() {
        // Proves the failed (or torn) record: the journal's write fails, so nothing is written back out of order,
        // around-cache writes are refused with one line, the error is visible, and after a restart the three epochs
        // are restored and written back in order: the backing device never left them.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        rig.cacheDevice.failWrites = true;
        rig.backingDevice.recording = true;
        rig.tune(b -> b.ordering(WritebackOrdering.NONE).running(true));
        rig.loop.runFor(2_000 * MS);
        assertThat(rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')).as("nothing written back").isEmpty();
        assertThat(rig.writeback().lastError()).contains("could not record that the epochs");
        rig.volume().setMode(CacheMode.WRITETHROUGH);
        IoResult around = rig.await(cb -> rig.volume().write(500L * BLOCK,
                ByteBuffer.wrap(WritebackRig.pattern(9, BLOCK)), false, cb));
        assertThat(around.ok()).isFalse();
        assertThat(around.message()).contains("could not record that the epochs").doesNotContain("\n");
        assertThat(rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')).isEmpty();

        rig.cacheDevice.failWrites = false;
        rig.crashAndReopen(new Prng(9), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        assertThat(rig.volume().index().epochs().epochsHeld()).isEqualTo(3);
        EpochOrderingTest.assertEpochOrder(rig, EpochOrderingTest.drainAndRecord(rig));
    }

    @Test
    void aDrainStartedOnAVolumeHeldUntilRestartEndsAtOnceWithTheHoldsReason() {
        // Proves the fuzz's seed 214430 fixed: a drain asked for after the void record failed could never progress
        // (writeback is held until a restart, by design) and never ended. Checked to fail without the fix: no result.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        long dirty = rig.dirtySectors();
        rig.cacheDevice.failWrites = true;
        rig.tune(b -> b.ordering(WritebackOrdering.NONE).running(true));
        assertThat(runUntil(rig, () -> rig.writeback().lastError() != null)).as("the void record failed").isTrue();
        IoResult[] drained = {null};
        rig.loop.execute(() -> rig.set.drain(WritebackRig.NAME, p -> { }, result -> drained[0] = result));
        assertThat(runUntil(rig, () -> drained[0] != null)).as("the drain ended").isTrue();
        assertThat(drained[0].ok()).isFalse();
        assertThat(drained[0].message()).startsWith("drain stopped: ").contains("could not record that the epochs")
                .endsWith("the dirty data stays in the cache");
        assertThat(rig.writeback().drainJob().state()).isEqualTo(DrainState.FAILED);
        assertThat(rig.dirtySectors()).as("nothing written back").isEqualTo(dirty);
    }

    @Test
    void aWriteAroundTheCacheAfterARestartWithoutOrderingWaitsUntilTheRecoveredEpochsAreVoidOnRecord() {
        // Proves the restart case: recovered epochs are pending, ordering stays off, and a write-through write would
        // land on the backing device before the older epochs; it is held until the record voiding them is durable,
        // so a power cut after it cannot restore them (without the record, the three epochs came back).
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        rig.crashAndReopen(new Prng(10), b -> b.running(false).ordering(WritebackOrdering.NONE));
        assertThat(rig.volume().index().epochs().recoveredPending()).isTrue();
        rig.volume().setMode(CacheMode.WRITETHROUGH);
        rig.backingDevice.recording = true;
        boolean[] pendingAtWrite = {false};
        rig.backingDevice.onRecordedWrite = () -> pendingAtWrite[0] |= rig.volume().index().epochVoidPending();
        rig.write(500L * BLOCK, WritebackRig.pattern(77, BLOCK));
        assertThat(rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')).hasSize(1);
        assertThat(pendingAtWrite[0]).as("the around write was issued while the void record was pending").isFalse();
        assertThat(rig.volume().index().epochs().recoveredPending()).isFalse();

        rig.crashAndReopen(new Prng(11), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
    }

    @Test
    void aLiveSwitchToEpochsThenAPowerCutLeavesTheDataFromBeforeTheSwitchOfUnknownOrder() {
        // Proves the reverse switch: data written while ordering was off has no recorded epoch, so after a power cut
        // everything dirty is of unknown order (never put before epochs it may be newer than), and new writes come
        // after it.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.NONE);
        rig.write(400L * BLOCK, WritebackRig.pattern(40, BLOCK));
        rig.flush();
        rig.tune(b -> b.ordering(WritebackOrdering.EPOCHS));
        assertThat(rig.volume().index().epochVoidPending()).as("nothing on record to void").isFalse();
        EpochOrderingTest.writeEpochs(rig);
        rig.crashAndReopen(new Prng(12), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
        assertThat(epochs.current()).isGreaterThan(DirtyEpochs.ORDER_UNKNOWN);
    }

    /** Runs the loop in 1 ms steps until {@code condition} holds, at most {@link #WAIT_NS_MAX}; whether it held. */
    @Test
    void aWriteRoutedWhileUnorderedThatLandsAfterOrderingIsTurnedOnJoinsTheUnknownOrderEpoch() {
        // Proves the fuzz's seed 90249 fixed: a write routed while the volume kept no order passed no epoch gate, so
        // when it lands after ordering=epochs was turned on it must not join a real epoch. It overwrote data dirty
        // at the switch (unknown order) and took the current epoch, which hid that data behind a later epoch while
        // newer writes of unknown order reached the backing device first. Fails without the fix: epoch 2, alone.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.NONE);
        rig.write(0, WritebackRig.pattern(1, BLOCK));
        rig.flush();
        IoResult[] landed = {null};
        rig.volume().write(0, ByteBuffer.wrap(WritebackRig.pattern(2, BLOCK)), false, result -> landed[0] = result);
        rig.tune(b -> b.ordering(WritebackOrdering.EPOCHS));
        assertThat(runUntil(rig, () -> landed[0] != null)).as("the write landed").isTrue();
        assertThat(landed[0]).isEqualTo(IoResult.OK);
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.oldest()).as("in the unknown-order epoch").isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(rig.read(0, BLOCK)).isEqualTo(WritebackRig.pattern(2, BLOCK));
    }

    @Test
    void aWriteRoutedInOneRunOfOrderingThatLandsInTheNextJoinsTheUnknownOrderEpoch() {
        // Proves the same for a write routed with an epoch (2) when ordering is switched off and on again before it
        // lands: data routed in between may sit in the unknown-order epoch, so epoch 2 means nothing now. Without the
        // tracking run it would join epoch 2 beside the unknown-order data, and be written back after it.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        rig.write(0, WritebackRig.pattern(1, BLOCK));
        rig.flush();
        IoResult[] landed = {null};
        rig.volume().write(40L * BLOCK, ByteBuffer.wrap(WritebackRig.pattern(2, BLOCK)), false,
                result -> landed[0] = result);
        rig.tune(b -> b.ordering(WritebackOrdering.NONE));
        rig.tune(b -> b.ordering(WritebackOrdering.EPOCHS));
        assertThat(runUntil(rig, () -> landed[0] != null)).as("the write landed").isTrue();
        assertThat(landed[0]).isEqualTo(IoResult.OK);
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
        assertThat(epochs.epochsHeld()).as("only the unknown-order epoch").isEqualTo(1);
    }

    private static boolean runUntil(WritebackRig rig, BooleanSupplier condition) {
        for (long waitedNs = 0; waitedNs < WAIT_NS_MAX && !condition.getAsBoolean(); waitedNs += MS) {
            rig.loop.runFor(MS);
        }
        return condition.getAsBoolean();
    }
}

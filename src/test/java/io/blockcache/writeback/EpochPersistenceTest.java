package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.volume.DirtyEpochs;
import org.junit.jupiter.api.Test;

/**
 * The epochs of dirty data are persisted (journal records and checkpoint runs, docs/FORMAT.md §5.2, §6),
 * so after a crash or a clean stop writeback goes on in the order of the client's FLUSHes.
 */
class EpochPersistenceTest {
    private static final int BLOCK = 4096;

    @Test
    void theOrderOfEpochsSurvivesAPowerCut() {
        // Proves recovery from the journal restores each dirty block's epoch: three epochs written before a crash
        // are written back one after the other after it (LBA order alone would write the last one first).
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        long currentBefore = rig.volume().index().epochs().current();
        rig.crashAndReopen(new Prng(3), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).isEqualTo(3);
        assertThat(epochs.oldest()).isNotEqualTo(DirtyEpochs.ORDER_UNKNOWN);
        assertThat(epochs.current()).as("new writes come after every recovered epoch")
                .isGreaterThanOrEqualTo(currentBefore - 1).isGreaterThan(epochs.oldest() + 2);
        EpochOrderingTest.assertEpochOrder(rig, EpochOrderingTest.drainAndRecord(rig));
    }

    @Test
    void theOrderOfEpochsSurvivesACheckpointAndACleanStop() {
        // Proves the checkpoint carries the epochs (type 3 runs): after a checkpoint and a clean stop, whose own
        // checkpoint leaves nothing to replay, the order is the same.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        assertThat(rig.await(cb -> rig.set.checkpoint(cb))).isEqualTo(IoResult.OK);
        assertThat(rig.await(cb -> rig.set.shutdown(cb))).isEqualTo(IoResult.OK);
        rig.crashAndReopen(new Prng(4), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        assertThat(rig.volume().index().epochs().epochsHeld()).isEqualTo(3);
        EpochOrderingTest.assertEpochOrder(rig, EpochOrderingTest.drainAndRecord(rig));
    }

    @Test
    void recoveredEpochsAreDroppedOnceTheVolumeChangesWithoutOrdering() {
        // Proves the recovered order is used only if ordering is on before anything changes: a write while the
        // knob is off has no epoch, so turning it on afterwards puts all dirty data in ORDER_UNKNOWN, as a live
        // switch does (docs/WRITEBACK.md "Epoch ordering").
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        rig.crashAndReopen(new Prng(5), b -> b.running(false).ordering(WritebackOrdering.NONE));
        assertThat(rig.volume().index().epochs().recoveredPending()).isTrue();
        rig.write(500L * BLOCK, WritebackRig.pattern(77, BLOCK));
        assertThat(rig.volume().index().epochs().recoveredPending()).isFalse();
        rig.tune(b -> b.ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
    }

    @Test
    void dirtyDataWrittenWhileOrderingWasOffMakesEveryRecoveredEpochUnknown() {
        // Proves a gap is never guessed: data written with ordering off carries no epoch, it may be newer than
        // recorded epochs, so after a restart all dirty data is of unknown order rather than in a wrong one.
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        rig.tune(b -> b.ordering(WritebackOrdering.NONE));
        rig.write(500L * BLOCK, WritebackRig.pattern(77, BLOCK));
        rig.flush();
        rig.crashAndReopen(new Prng(6), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN);
    }
}

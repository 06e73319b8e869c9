package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.engine.DamageInspector;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.loop.Prng;
import io.blockcache.volume.DirtyEpochs;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The damage map of a volume with {@code ordering=epochs} says "consistent as of flush epoch E"
 * (docs/FORMAT.md §4.1), set lazily at a sweep, and the flag is cleared durably before anything may break the order
 * (a switch to {@code none}) and at every open, so that a map read after a cache loss never vouches for more than the
 * backing device holds.
 */
class ConsistentMapFlagTest {
    private static final long MS = 1_000_000L;
    private static final int BLOCK = 4096;
    private static final long NEWER_BLOCK = 600;

    /** Three epochs written back, then a fourth left dirty, and a sweep: the map is flagged. */
    private static WritebackRig flaggedRig() {
        WritebackRig rig = EpochOrderingTest.pausedRig(WritebackOrdering.EPOCHS);
        EpochOrderingTest.writeEpochs(rig);
        EpochOrderingTest.drainAndRecord(rig);
        rig.tune(b -> b.running(false));
        rig.write(NEWER_BLOCK * BLOCK, WritebackRig.pattern(NEWER_BLOCK, BLOCK));
        rig.flush();
        assertThat(rig.await(cb -> rig.volume().damageMap().sweep(cb))).isEqualTo(IoResult.OK);
        return rig;
    }

    /** The epoch the map on the backing device says it is consistent as of, or -1, read as check --damage reads it. */
    private static long consistentEpoch(WritebackRig rig) {
        ByteBuffer headerBytes = ByteBuffer.allocate(BackingHeader.BYTES);
        rig.hdd.peek(0, headerBytes);
        BackingHeader header = BackingHeader.decode(headerBytes.array(), 0).value();
        DamageMapGeometry geometry = DamageMapGeometry.of(header.dataOffsetBytes(), header.volumeSizeBytes());
        ByteBuffer area = ByteBuffer.allocate(geometry.areaBytes());
        rig.hdd.peek(DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES, area);
        return DamageInspector.decode("vol", header, geometry, area.array()).consistentEpoch();
    }

    @Test
    void anOrderedVolumeFlagsItsMapConsistentAsOfTheNewestEpochWrittenBackAndFlushed() {
        // Proves the flag and its epoch: with the fourth epoch dirty, the map says consistent as of the third (the
        // oldest dirty one minus one), and lists nothing stale, while the backing device does not hold the fourth
        // epoch's data yet: older, not stale.
        WritebackRig rig = flaggedRig();
        DirtyEpochs epochs = rig.volume().index().epochs();
        assertThat(epochs.oldest()).isGreaterThan(1);
        assertThat(consistentEpoch(rig)).isEqualTo(epochs.oldest() - 1);
        assertThat(rig.backing(NEWER_BLOCK * BLOCK, BLOCK)).isEqualTo(new byte[BLOCK]);
        assertThat(rig.read(NEWER_BLOCK * BLOCK, BLOCK)).isEqualTo(WritebackRig.pattern(NEWER_BLOCK, BLOCK));
    }

    @Test
    void switchingToNoneClearsTheFlagDurablyBeforeAnythingIsWrittenBackOutOfOrder() {
        // Proves the clear comes first: right after the switch the volume holds its order, and at the first backing
        // write writeback issues without ordering, the map on the device no longer says consistent.
        WritebackRig rig = flaggedRig();
        rig.backingDevice.recording = true;
        rig.backingDevice.ops.clear();
        long[] flagAtFirstWrite = {Long.MIN_VALUE};
        rig.backingDevice.onRecordedWrite = () -> {
            if (flagAtFirstWrite[0] == Long.MIN_VALUE) {
                flagAtFirstWrite[0] = consistentEpoch(rig);
            }
        };
        rig.tune(b -> b.ordering(WritebackOrdering.NONE).running(true));
        assertThat(rig.volume().orderHeld()).as("held until the clear is durable").isTrue();
        rig.loop.runFor(2_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(flagAtFirstWrite[0]).as("the map's flag at the first unordered backing write").isEqualTo(-1);
        assertThat(consistentEpoch(rig)).isEqualTo(-1);
    }

    @Test
    void aClearThatCannotBeWrittenKeepsTheVolumeHeldAndIsRetriedUntilItIs() {
        // Proves a failed clear never lets the order break: while the map's writes fail, nothing is written back and
        // the error is visible; once the device takes writes again, the retried clear lands and writeback runs.
        WritebackRig rig = flaggedRig();
        rig.backingDevice.recording = true;
        rig.backingDevice.ops.clear();
        rig.backingDevice.failWrites = true;
        rig.tune(b -> b.ordering(WritebackOrdering.NONE).running(true));
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.volume().orderHeld()).isTrue();
        assertThat(rig.writeback().lastError()).contains("could not be cleared of its consistency flag");
        assertThat(rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W'
                && op.offsetBytes() >= rig.volume().backingOffsetBytes(0))).as("no data written back").isEmpty();
        assertThat(consistentEpoch(rig)).as("the device still holds the flag: the order was kept").isPositive();

        rig.backingDevice.failWrites = false;
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.volume().orderHeld()).isFalse();
        assertThat(consistentEpoch(rig)).isEqualTo(-1);
        assertThat(rig.dirtySectors()).isZero();
    }

    @Test
    void everyOpenClearsTheFlagBeforeTheVolumeServes() {
        // Proves the flag does not outlive its incarnation: after a power cut the open rewrites the map without it
        // (a sweep of the new incarnation sets it again once the order holds there).
        WritebackRig rig = flaggedRig();
        assertThat(consistentEpoch(rig)).isPositive();
        rig.crashAndReopen(new Prng(13), b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        assertThat(consistentEpoch(rig)).isEqualTo(-1);
    }
}

package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.volume.CacheMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Writeback with {@code ordering=epochs} keeps the order of the client's FLUSHes. */
class EpochOrderingTest {
    private static final long MS = 1_000_000L;
    private static final int BLOCK = 4096;
    /** Three epochs of ten blocks each; the later epochs lie at lower LBAs, so LBA order would invert them. */
    private static final long[] EPOCH_FIRST_BLOCK = {200, 100, 0};

    static WritebackRig pausedRig(WritebackOrdering ordering) {
        WritebackRig rig = new WritebackRig(64L << 20, 1L << 30);
        rig.tune(b -> b.running(false).ordering(ordering));
        return rig;
    }

    /** Writes the three epochs, each closed by a FLUSH; blocks three apart, so no two merge. */
    static void writeEpochs(WritebackRig rig) {
        for (long first : EPOCH_FIRST_BLOCK) {
            for (int i = 0; i < 10; i++) {
                rig.write((first + 3L * i) * BLOCK, WritebackRig.pattern(first + i, BLOCK));
            }
            rig.flush();
        }
    }

    /** The epoch (0, 1, 2) a backing write at {@code offsetBytes} belongs to. */
    private static int epochOf(WritebackRig rig, long offsetBytes) {
        long block = (offsetBytes - rig.volume().backingOffsetBytes(0)) / BLOCK;
        for (int e = 0; e < EPOCH_FIRST_BLOCK.length; e++) {
            if (block >= EPOCH_FIRST_BLOCK[e] && block < EPOCH_FIRST_BLOCK[e] + 30) {
                return e;
            }
        }
        throw new AssertionError("backing write outside the epochs at block " + block);
    }

    /** Writes back everything and returns the backing device's writes ('W' + epoch) and flushes ('F') in order. */
    static List<String> drainAndRecord(WritebackRig rig) {
        rig.backingDevice.recording = true;
        rig.tune(b -> b.running(true));
        rig.loop.runFor(5_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        List<String> seen = new ArrayList<>();
        for (RecordingDevice.Op op : rig.backingDevice.ops) {
            seen.add(op.kind() == 'W' ? "W" + epochOf(rig, op.offsetBytes()) : String.valueOf(op.kind()));
        }
        return seen;
    }

    @Test
    void eachEpochIsWrittenBackAndFlushedBeforeTheNextOneStarts() {
        // Proves the order: every write of epoch n is issued, and a backing flush, before any write of epoch n+1,
        // although LBA order alone would write the last epoch first (unordered writeback does, checked below).
        WritebackRig rig = pausedRig(WritebackOrdering.EPOCHS);
        writeEpochs(rig);
        assertEpochOrder(rig, drainAndRecord(rig));

        WritebackRig unordered = pausedRig(WritebackOrdering.NONE);
        writeEpochs(unordered);
        List<String> lba = drainAndRecord(unordered);
        assertThat(lba.stream().filter(op -> op.startsWith("W")).findFirst()).as("unordered: LBA order")
                .contains("W2");
    }

    /**
     * Asserts that {@code seen} (from {@link #drainAndRecord}) writes the three epochs in order, each ended by a
     * backing flush before the next one's first write, and that the backing device ends with every epoch's data.
     */
    static void assertEpochOrder(WritebackRig rig, List<String> seen) {
        int epoch = 0;
        boolean flushedSinceEpochChange = true;
        for (String op : seen) {
            if (op.equals("F")) {
                flushedSinceEpochChange = true;
            } else if (op.startsWith("W")) {
                int e = op.charAt(1) - '0';
                assertThat(e).as("ops %s", seen).isGreaterThanOrEqualTo(epoch);
                if (e > epoch) {
                    assertThat(flushedSinceEpochChange).as("flush before epoch %d in %s", e, seen).isTrue();
                    epoch = e;
                }
                flushedSinceEpochChange = false;
            }
        }
        assertThat(epoch).isEqualTo(2);
        for (long first : EPOCH_FIRST_BLOCK) {
            assertThat(rig.backing(first * BLOCK, BLOCK)).isEqualTo(WritebackRig.pattern(first, BLOCK));
        }
    }

    @Test
    void anOverwriteOfOlderEpochDirtyDataWaitsUntilThatEpochIsOnTheBackingDevice() {
        // Proves the front-end hold: the overwrite of a block still dirty from an older epoch completes only after
        // that block's old data was written back and flushed, even with writeback paused (the wait makes it run).
        WritebackRig rig = pausedRig(WritebackOrdering.EPOCHS);
        byte[] old = WritebackRig.pattern(1, BLOCK);
        byte[] newer = WritebackRig.pattern(2, BLOCK);
        rig.write(0, old);
        rig.flush();
        rig.backingDevice.recording = true;
        IoResult[] done = {null};
        int[] opsAtCompletion = {-1};
        rig.volume().write(0, ByteBuffer.wrap(newer), false, r -> {
            done[0] = r;
            opsAtCompletion[0] = rig.backingDevice.ops.size();
        });
        rig.loop.runFor(2_000 * MS);
        assertThat(done[0]).isEqualTo(IoResult.OK);
        assertThat(rig.volume().epochWaitsTotal()).isEqualTo(1);
        List<RecordingDevice.Op> before = rig.backingDevice.ops.subList(0, opsAtCompletion[0]);
        assertThat(before.stream().map(RecordingDevice.Op::kind).toList()).containsSubsequence('W', 'F');
        assertThat(rig.backing(0, BLOCK)).isEqualTo(old); // the old epoch is on the backing device
        assertThat(rig.read(0, BLOCK)).isEqualTo(newer); // the newer write is what the volume holds
        assertThat(rig.dirtySectors()).isEqualTo(BLOCK / BlockDevice.SECTOR_BYTES);
    }

    @Test
    void aWriteGoingAroundTheCacheWaitsForOlderEpochs() {
        // Proves around-cache writes are ordered too: in write-through mode, a write elsewhere reaches the backing
        // device only after the dirty data of the older epoch did (and was flushed).
        WritebackRig rig = pausedRig(WritebackOrdering.EPOCHS);
        rig.write(0, WritebackRig.pattern(1, BLOCK));
        rig.flush();
        rig.volume().setMode(CacheMode.WRITETHROUGH);
        rig.backingDevice.recording = true;
        rig.write(100L * BLOCK, WritebackRig.pattern(2, BLOCK));
        List<Long> writes = rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')
                .map(RecordingDevice.Op::offsetBytes).toList();
        assertThat(writes).containsExactly(rig.volume().backingOffsetBytes(0),
                rig.volume().backingOffsetBytes(100L * BLOCK / BlockDevice.SECTOR_BYTES));
        int firstWrite = rig.backingDevice.ops.indexOf(rig.backingDevice.ops.stream()
                .filter(op -> op.kind() == 'W').findFirst().orElseThrow());
        int secondWrite = rig.backingDevice.ops.lastIndexOf(rig.backingDevice.ops.stream()
                .filter(op -> op.kind() == 'W').reduce((a, b) -> b).orElseThrow());
        assertThat(rig.backingDevice.ops.subList(firstWrite, secondWrite).stream().map(RecordingDevice.Op::kind))
                .contains('F');
        assertThat(rig.volume().epochWaitsTotal()).isEqualTo(1);
    }

    @Test
    void aBackingWriteErrorStopsWritebackInItsEpochAndRefusesTheWritesThatWait() {
        // Proves a failed epoch is never skipped: with every backing write failing, nothing of the next epoch is
        // written, the error is visible, a waiting overwrite is refused with a one-line reason, a drain fails.
        WritebackRig rig = pausedRig(WritebackOrdering.EPOCHS);
        writeEpochs(rig);
        rig.backingDevice.failWrites = true;
        rig.backingDevice.recording = true;
        rig.tune(b -> b.running(true));
        rig.loop.runFor(1_000 * MS);
        assertThat(rig.writeback().lastError()).contains("injected write error");
        assertThat(rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')
                .map(op -> epochOf(rig, op.offsetBytes()))).isNotEmpty().containsOnly(0);
        IoResult overwrite = rig.await(cb -> rig.volume().write(EPOCH_FIRST_BLOCK[0] * BLOCK,
                ByteBuffer.wrap(WritebackRig.pattern(9, BLOCK)), false, cb));
        assertThat(overwrite.ok()).isFalse();
        assertThat(overwrite.message()).contains("waiting for older epochs").contains("injected write error");
        assertThat(rig.read(EPOCH_FIRST_BLOCK[0] * BLOCK, BLOCK)).isEqualTo(
                WritebackRig.pattern(EPOCH_FIRST_BLOCK[0], BLOCK)); // the refused write changed nothing
        IoResult drained = rig.await(cb -> rig.set.drain(WritebackRig.NAME, p -> { }, cb));
        assertThat(drained.ok()).isFalse();
        assertThat(rig.dirtySectors()).isEqualTo(30L * BLOCK / BlockDevice.SECTOR_BYTES);
    }
}

package io.blockcache.backinglog;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LogGroupWriterTest {
    private static final long LOG_BYTES = 4L << 20;
    private static final long VOLUME_BYTES = 16L << 20;
    private static final BackingHeader HEADER = new BackingHeader(new UUID(3, 4), new UUID(1, 2),
            BackingHeader.LOG_OFFSET_BYTES + LOG_BYTES, VOLUME_BYTES, LOG_BYTES);
    private static final BackingLogRegion REGION = BackingLogRegion.of(HEADER);

    private final SimLoop loop = new SimLoop();
    private final MemoryDevice device = new MemoryDevice(loop, HEADER.deviceSizeBytes(), 512);

    /** A device that records the offset, length and FUA flag of every write, and the place of every flush. */
    private final class Recording extends io.blockcache.device.ForwardingDevice {
        final List<String> ops = new ArrayList<>();

        Recording() {
            super(device);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            ops.add("write " + offsetBytes + " " + src.remaining() + (fua ? " fua" : ""));
            super.write(offsetBytes, src, fua, callback);
        }

        @Override
        public void flush(IoCallback callback) {
            ops.add("flush");
            super.flush(callback);
        }
    }

    private static byte[] pattern(long seed, int bytes) {
        byte[] out = new byte[bytes];
        new Prng(seed).nextBytes(out);
        return out;
    }

    private String commit(LogGroupWriter writer, long lastEpoch) {
        String[] out = {"pending"};
        writer.commit(lastEpoch, failure -> out[0] = failure);
        loop.runUntilIdle();
        return out[0];
    }

    private LogReplay.Result replay(BlockDevice target) {
        LogReplay.Result[] out = {null};
        LogReplay.run(target, REGION, r -> out[0] = r);
        loop.runUntilIdle();
        return out[0];
    }

    private byte[] volume(long sector, int sectors) {
        ByteBuffer buffer = ByteBuffer.allocate(sectors * BlockDevice.SECTOR_BYTES);
        device.read(REGION.volumeBytes(sector), buffer, r -> { });
        loop.runUntilIdle();
        return buffer.array();
    }

    @Test
    void aGroupIsWrittenSequentiallyInLargeChunksThenFlushedThenCommittedWithFua() {
        // Proves the I/O pattern the cost model assumed: 1 MiB sequential log writes, descriptors, one flush, and
        // only then the commit block, with FUA.
        Recording recording = new Recording();
        LogGroupWriter writer = new LogGroupWriter(recording, REGION, new ChunkBuffers(), 1, 3);
        int[] freed = {0};
        writer.whenBufferFreed(() -> freed[0]++);
        for (int i = 0; i < 24; i++) { // 24 records of 128 KiB: 3 MiB of data, three full chunks
            LogGroupWriter.Slot slot = writer.reserve(i * 512L, 256);
            slot.buffer().put(0, pattern(i, 128 << 10));
            writer.filled(slot);
        }
        // Two chunks closed and being written, the third full but still open: what a caller bounds its scan by.
        assertThat(writer.bufferedBytes()).isEqualTo(3L << 20);
        assertThat(commit(writer, 4)).isNull();
        assertThat(writer.bufferedBytes()).isZero();
        assertThat(freed[0]).isEqualTo(3);
        long log = BackingHeader.LOG_OFFSET_BYTES;
        assertThat(recording.ops).containsExactly(
                "write " + (log + 4096) + " " + (1 << 20),
                "write " + (log + 4096 + (1 << 20)) + " " + (1 << 20),
                "write " + (log + 4096 + (2 << 20)) + " " + (1 << 20),
                "write " + (log + 4096 + (3 << 20)) + " 4096",
                "flush",
                "write " + log + " 4096 fua");
        LogReplay.Result[] peek = {null};
        LogReplay.peek(device, REGION, r -> peek[0] = r);
        loop.runUntilIdle();
        BackingLogCommit commit = peek[0].commit();
        assertThat(commit.sequence()).isEqualTo(1);
        assertThat(commit.firstEpoch()).isEqualTo(3);
        assertThat(commit.lastEpoch()).isEqualTo(4);
        assertThat(commit.recordCount()).isEqualTo(24);
        assertThat(commit.dataBytes()).isEqualTo(3L << 20);
    }

    @Test
    void aReplayPutsEveryRecordInPlacePaddingNeverReachesTheVolumeAndTheLogIsRetired() {
        // Proves replay: odd-sized records (padded to 4 KiB in the log) land exactly on their sectors and nothing
        // else of the volume changes; afterwards the log holds no group and a second replay does nothing.
        byte[] before = pattern(99, 64 * 512);
        device.write(REGION.volumeBytes(0), ByteBuffer.wrap(before), false, r -> { });
        loop.runUntilIdle();
        LogGroupWriter writer = new LogGroupWriter(device, REGION, new ChunkBuffers(), 7, 0);
        LogGroupWriter.Slot a = writer.reserve(3, 5); // 2.5 KiB
        LogGroupWriter.Slot b = writer.reserve(20, 9); // 4.5 KiB
        b.buffer().put(0, pattern(2, 9 * 512));
        writer.filled(b); // filled out of order
        a.buffer().put(0, pattern(1, 5 * 512));
        writer.filled(a);
        assertThat(writer.dataBytes()).isEqualTo(4096 + 8192);
        assertThat(commit(writer, 0)).isNull();
        assertThat(volume(0, 64)).isEqualTo(before); // a commit alone writes nothing in place

        LogReplay.Result result = replay(device);
        assertThat(result.replayed()).isTrue();
        assertThat(result.commit().sequence()).isEqualTo(7);
        byte[] expected = before.clone();
        System.arraycopy(pattern(1, 5 * 512), 0, expected, 3 * 512, 5 * 512);
        System.arraycopy(pattern(2, 9 * 512), 0, expected, 20 * 512, 9 * 512);
        assertThat(volume(0, 64)).isEqualTo(expected);

        LogReplay.Result again = replay(device);
        assertThat(again.commit()).isNull();
        assertThat(again.failure()).isNull();
    }

    @Test
    void aGroupThatWouldOutgrowTheLogIsRefusedRecordByRecord() {
        // Proves the capacity rule: reserve says no (null) once data, descriptors and commit would pass the log.
        LogGroupWriter writer = new LogGroupWriter(device, REGION, new ChunkBuffers(), 1, 0);
        int taken = 0;
        while (writer.reserve(taken * 2048L, 2048) != null) { // 1 MiB records
            taken++;
        }
        // 4 MiB log: the commit block and one descriptor block leave room for three 1 MiB records, not four.
        assertThat(taken).isEqualTo(3);
        assertThat(writer.reserve(0, 8)).isNotNull(); // a small one still fits
    }

    @Test
    void aFailedWriteOrAFailedRecordLeavesNoCommitBehind() {
        // Proves that a group that could not be logged whole never commits: nothing for a replay to apply.
        FaultyDevice faulty = new FaultyDevice(device, loop, FaultPlan.none(), new Prng(1));
        LogGroupWriter writer = new LogGroupWriter(faulty, REGION, new ChunkBuffers(), 1, 0);
        LogGroupWriter.Slot slot = writer.reserve(0, 8);
        faulty.failNext(1);
        writer.filled(slot);
        String failure = commit(writer, 0);
        assertThat(failure).startsWith("writing the backing log at log byte 4096: ").contains("injected fault");
        assertThat(device.counters().completed(DeviceOp.FLUSH)).isZero();
        assertThat(replay(device).commit()).isNull();

        LogGroupWriter second = new LogGroupWriter(device, REGION, new ChunkBuffers(), 2, 0);
        LogGroupWriter.Slot unread = second.reserve(0, 8);
        second.fail("cache read failed: checksum mismatch");
        second.filled(unread);
        assertThat(commit(second, 0)).isEqualTo("cache read failed: checksum mismatch");
        assertThat(replay(device).commit()).isNull();
    }

    @Test
    void aCommitOverADamagedBodyIsReportedAndNothingGoesInPlace() {
        // Proves the damage check: a valid commit whose body fails its CRC is not replayed, and says so.
        LogGroupWriter writer = new LogGroupWriter(device, REGION, new ChunkBuffers(), 1, 0);
        LogGroupWriter.Slot slot = writer.reserve(0, 8);
        slot.buffer().put(0, pattern(5, 4096));
        writer.filled(slot);
        assertThat(commit(writer, 0)).isNull();
        byte[] before = volume(0, 8);
        device.write(REGION.logBytes(4096), ByteBuffer.wrap(new byte[512]), false, r -> { }); // media damage
        loop.runUntilIdle();
        LogReplay.Result result = replay(device);
        assertThat(result.replayed()).isFalse();
        assertThat(result.failure()).contains("fails its CRC").contains("damaged");
        assertThat(volume(0, 8)).isEqualTo(before);
    }
}

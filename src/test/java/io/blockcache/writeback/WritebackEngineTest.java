package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.volume.BypassSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WritebackEngineTest {
    private static final long MS = 1_000_000L;

    private WritebackRig rig() {
        return new WritebackRig(64L << 20, 1L << 30);
    }

    /** Writes {@code count} 4 KiB blocks, each {@code strideBlocks} apart, highest LBA first. */
    private static List<byte[]> writeDescending(WritebackRig rig, int count, int strideBlocks) {
        List<byte[]> data = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] block = WritebackRig.pattern(1000 + i, 4096);
            data.add(block);
            rig.write((long) (count - 1 - i) * strideBlocks * 4096, block);
        }
        return data;
    }

    @Test
    void idleWritebackCopiesEveryDirtyBlockToTheBackingDeviceAndMarksItClean() {
        // Proves the basic loop: idle front end → everything written back, flushed, marked clean, data intact.
        WritebackRig rig = rig();
        List<byte[]> data = writeDescending(rig, 100, 3);
        assertThat(rig.dirtySectors()).isEqualTo(800);
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        for (int i = 0; i < 100; i++) {
            assertThat(rig.backing((long) (99 - i) * 3 * 4096, 4096)).as("block %d", i).isEqualTo(data.get(i));
        }
        WritebackCounters c = rig.writeback().counters();
        assertThat(c.sectorsCleaned()).isEqualTo(800);
        assertThat(c.flushes()).isPositive();
        assertThat(rig.volume().index().extents().cachedSectors()).isEqualTo(800); // clean copies stay cached
    }

    @Test
    void modernPassesReadTheCacheInLbaOrderAndKeepManyBackingWritesInFlight() {
        // Proves LBA ordering at read submission (min-heap) and no sequence wait: keys written in descending LBA
        // sit in the cache in ascending offsets, so an LBA-ordered pass reads descending cache offsets.
        WritebackRig rig = rig();
        rig.tune(b -> b.running(false));
        writeDescending(rig, 60, 3);
        rig.loop.runFor(300 * MS);
        rig.tune(b -> b.running(true));
        rig.cacheDevice.recording = true;
        rig.loop.runFor(3_000 * MS);
        List<Long> reads = rig.cacheDevice.ops.stream().filter(op -> op.kind() == 'R' && op.lengthBytes() == 4096)
                .map(RecordingDevice.Op::offsetBytes).toList();
        assertThat(reads).hasSize(60);
        for (int i = 1; i < reads.size(); i++) {
            assertThat(reads.get(i)).as("read %d", i).isLessThan(reads.get(i - 1));
        }
        assertThat(rig.writeback().counters().backingWritesInFlightPeak()).isGreaterThan(1);
        assertThat(rig.writeback().counters().passes()).isEqualTo(1); // one idle pass of 60 keys
    }

    @Test
    void fifoOrderReadsInWriteOrder() {
        // Proves the order knob: FIFO issues the same keys oldest first, i.e. ascending cache offsets.
        WritebackRig rig = rig();
        rig.tune(b -> b.order(WritebackOrder.FIFO));
        writeDescending(rig, 40, 3);
        rig.cacheDevice.recording = true;
        rig.loop.runFor(3_000 * MS);
        List<Long> reads = rig.cacheDevice.ops.stream().filter(op -> op.kind() == 'R' && op.lengthBytes() == 4096)
                .map(RecordingDevice.Op::offsetBytes).toList();
        assertThat(reads).hasSize(40).isSorted();
        assertThat(rig.dirtySectors()).isZero();
    }

    @Test
    void adjacentExtentsMergeIntoBackingWritesOfAtMostTheMaximumSize() {
        // Proves merging: 64 LBA-adjacent 16 KiB extents (1 MiB + 0) go out as a few writes of <= 256 KiB.
        WritebackRig rig = rig();
        rig.tune(b -> b.backingIoSectorsMax(512).running(false));
        for (int i = 0; i < 64; i++) {
            rig.write((long) i * 16384, WritebackRig.pattern(i, 16384));
        }
        rig.loop.runFor(300 * MS); // the front end is idle now: the next pass is idle-sized
        rig.tune(b -> b.running(true));
        rig.backingDevice.recording = true;
        rig.loop.runFor(3_000 * MS);
        List<RecordingDevice.Op> writes = rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W').toList();
        assertThat(writes).hasSize(4);
        assertThat(writes).allSatisfy(op -> assertThat(op.lengthBytes()).isEqualTo(256 << 10));
        assertThat(rig.backing(0, 1 << 20)).isEqualTo(rig.read(0, 1 << 20));
    }

    @Test
    void classicWritesEachKeyOnItsOwnInPassesOfAtMostFiveContiguousKeys() {
        // Proves classic does not merge: 10 LBA-adjacent 16 KiB extents go out as 10 writes of 16 KiB in LBA order,
        // in two passes of 5 (bcache: MAX_WRITEBACKS_IN_PASS, one bio per key); modern makes one 160 KiB write.
        WritebackRig rig = rig();
        rig.tune(b -> b.policy(WritebackPolicy.CLASSIC).classicIdleNs(500 * MS).running(false));
        for (int i = 0; i < 10; i++) {
            rig.write((long) i * 16384, WritebackRig.pattern(i, 16384));
        }
        rig.loop.runFor(1_000 * MS);
        rig.tune(b -> b.running(true));
        rig.backingDevice.recording = true;
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(rig.writeback().counters().passes()).isEqualTo(2);
        List<RecordingDevice.Op> writes = rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W').toList();
        assertThat(writes).hasSize(10).allSatisfy(op -> assertThat(op.lengthBytes()).isEqualTo(16384));
        assertThat(writes.stream().map(RecordingDevice.Op::offsetBytes).toList()).isSorted();
        assertThat(rig.backing(0, 10 * 16384)).isEqualTo(rig.read(0, 10 * 16384));
    }

    @Test
    void theInFlightCapBoundsKeysAndBackingWrites() {
        // Proves io_in_flight_max: never more keys (or backing writes) in flight than the cap, and the cap is used.
        WritebackRig rig = rig();
        rig.tune(b -> b.ioInFlightMax(8));
        writeDescending(rig, 100, 5);
        rig.loop.runFor(5_000 * MS);
        WritebackCounters c = rig.writeback().counters();
        assertThat(rig.dirtySectors()).isZero();
        assertThat(c.keysInFlightPeak()).isEqualTo(8);
        assertThat(c.backingWritesInFlightPeak()).isBetween(2L, 8L);
    }

    @Test
    void runsEndingOneAtATimeDoNotCutTheNextPassesDownToOneKeyEach() {
        // Proves a modern pass waits for room for a whole pass (here half the cap of 8): the first pass takes 8
        // scattered keys, 8 one-key runs that the disk completes one at a time; the 64 adjacent keys after them go
        // out merged in passes of at least 4 keys. Clipped to the room of the moment, each of those passes took the
        // one key a completion had just freed, and the 64 keys went out as about 60 writes (2026-12-02).
        WritebackRig rig = rig();
        rig.tune(b -> b.ioInFlightMax(8).running(false));
        for (int i = 0; i < 8; i++) {
            rig.write((long) i * 1024 * 4096, WritebackRig.pattern(i, 4096)); // 4 MiB apart
        }
        long adjacentFrom = 64L << 20;
        for (int i = 0; i < 64; i++) {
            rig.write(adjacentFrom + (long) i * 4096, WritebackRig.pattern(100 + i, 4096));
        }
        rig.loop.runFor(300 * MS);
        rig.tune(b -> b.running(true));
        rig.backingDevice.recording = true;
        rig.loop.runFor(5_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        List<RecordingDevice.Op> adjacentWrites = rig.backingDevice.ops.stream()
                .filter(op -> op.kind() == 'W' && op.offsetBytes() >= adjacentFrom).toList();
        assertThat(adjacentWrites.stream().mapToLong(RecordingDevice.Op::lengthBytes).sum()).isEqualTo(64 * 4096);
        assertThat(adjacentWrites).as("writes of the 64 adjacent keys").hasSizeLessThanOrEqualTo(16);
        assertThat(rig.writeback().counters().keysInFlightPeak()).isEqualTo(8);
        assertThat(rig.backing(adjacentFrom, 64 * 4096)).isEqualTo(rig.read(adjacentFrom, 64 * 4096));
    }

    @Test
    void classicIssuesBackingWritesInSequenceOrderWithoutWaitingForCompletion() {
        // Proves classic's ordering: one pass per non-contiguous key, writes issued in ascending LBA (sequence) order,
        // and more than one in flight (bcache advances writeback_sequence_next on submission, not completion).
        WritebackRig rig = rig();
        rig.tune(b -> b.policy(WritebackPolicy.CLASSIC).classicIdleNs(500 * MS));
        writeDescending(rig, 30, 3);
        rig.backingDevice.recording = true;
        rig.loop.runFor(5_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        WritebackCounters c = rig.writeback().counters();
        assertThat(c.backingWritesInFlightPeak()).isBetween(2L, 30L);
        assertThat(c.passes()).isEqualTo(30); // no two keys are contiguous: one key per classic pass
        List<Long> writes = rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')
                .map(RecordingDevice.Op::offsetBytes).toList();
        assertThat(writes).hasSize(30).isSorted();
    }

    @Test
    void classicWaitsForTheEarlierWriteToBeIssuedNotCompletedThenIssuesTheReadOnesAtOnce() {
        // Proves both sides of classic's sequence rule: while the first key's cache read is slow, the two keys read
        // after it are not written; once it is read, all three writes go out together in LBA order.
        WritebackRig rig = rig();
        rig.tune(b -> b.policy(WritebackPolicy.CLASSIC).classicIdleNs(500 * MS).running(false));
        List<byte[]> data = writeDescending(rig, 3, 3);
        rig.loop.runFor(1_000 * MS); // classic calls the front end idle now: its passes start at once
        rig.cacheDevice.readsToHold = 1; // the first read is the lowest key's: sequence 0
        rig.backingDevice.recording = true;
        rig.tune(b -> b.running(true));
        rig.loop.runFor(200 * MS);
        assertThat(rig.cacheDevice.heldReads()).isEqualTo(1);
        assertThat(rig.writeback().keysInFlight()).isEqualTo(3);
        assertThat(rig.backingDevice.ops).noneMatch(op -> op.kind() == 'W');
        rig.cacheDevice.releaseHeldReads();
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(rig.writeback().counters().backingWritesInFlightPeak()).isEqualTo(3);
        List<Long> writes = rig.backingDevice.ops.stream().filter(op -> op.kind() == 'W')
                .map(RecordingDevice.Op::offsetBytes).toList();
        assertThat(writes).hasSize(3).isSorted();
        for (int i = 0; i < 3; i++) {
            assertThat(rig.backing((long) (2 - i) * 3 * 4096, 4096)).as("block %d", i).isEqualTo(data.get(i));
        }
    }

    @Test
    void switchingToClassicWhileAModernReadIsSlowDoesNotStallLaterWrites() {
        // Proves a live policy switch keeps writeback going: runs written out of order under modern must not leave
        // classic waiting for a sequence number that was already written (found while fixing the classic baseline).
        WritebackRig rig = rig();
        // The held read makes the cache device look congested; the later writes must still be cached.
        rig.volume().setBypassSettings(BypassSettings.off());
        rig.tune(b -> b.running(false));
        writeDescending(rig, 3, 3);
        rig.loop.runFor(300 * MS); // modern calls the front end idle: one pass of three runs
        rig.cacheDevice.readsToHold = 1; // run 0 is slow; runs 1 and 2 are written under modern meanwhile
        rig.tune(b -> b.running(true));
        rig.loop.runFor(200 * MS);
        assertThat(rig.cacheDevice.heldReads()).isEqualTo(1);
        assertThat(rig.writeback().counters().backingWrites()).isEqualTo(2);
        rig.tune(b -> b.policy(WritebackPolicy.CLASSIC).classicIdleNs(100 * MS));
        rig.cacheDevice.releaseHeldReads();
        rig.loop.runFor(1_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        for (int i = 0; i < 5; i++) {
            rig.write((long) (100 + 3 * i) * 4096, WritebackRig.pattern(2000 + i, 4096));
        }
        assertThat(rig.dirtySectors()).isEqualTo(40);
        rig.loop.runFor(3_000 * MS);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(rig.writeback().keysInFlight()).isZero();
    }

    @Test
    void drainReportsProgressAndFinishesWithNothingDirty() {
        // Proves drain: progress with bytes left and an ETA, completion once clean and journaled, while busy.
        WritebackRig rig = rig();
        writeDescending(rig, 200, 7);
        List<DrainProgress> reports = new ArrayList<>();
        IoResult result = rig.await(cb -> rig.set.drain(WritebackRig.NAME, reports::add, cb));
        assertThat(result).isEqualTo(IoResult.OK);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(reports).isNotEmpty();
        DrainProgress last = reports.get(reports.size() - 1);
        assertThat(last.done()).isTrue();
        assertThat(last.dirtyBytesLeft()).isZero();
        assertThat(last.writtenBackBytes()).isEqualTo(200 * 4096);
        assertThat(last.bytesPerSecond()).isPositive();
    }
}

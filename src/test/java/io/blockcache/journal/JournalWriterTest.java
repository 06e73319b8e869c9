package io.blockcache.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JournalWriterTest {
    private static final int BUCKET_BYTES = 128 << 10;
    private static final long DELAY_NS = 100_000_000L;

    private final SimLoop loop = new SimLoop();
    private final MemoryDevice device = new MemoryDevice(loop, 4L << 20, 512);
    private final List<Long> durable = new ArrayList<>();

    private JournalWriter writer(io.blockcache.device.BlockDevice target, int ringBuckets) {
        return new JournalWriter(loop, target, new JournalRing(0, BUCKET_BYTES, ringBuckets), JournalPosition.fresh(),
                DELAY_NS, 64 << 10, 16, durable::add);
    }

    private byte[] ring(int buckets) {
        ByteBuffer buffer = ByteBuffer.allocate(buckets * BUCKET_BYTES);
        device.read(0, buffer, r -> { });
        loop.runUntilIdle();
        return buffer.array();
    }

    private IoResult commit(JournalWriter writer) {
        IoResult[] out = new IoResult[1];
        writer.commit(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        return out[0];
    }

    @Test
    void aCommitWritesEverythingAppendedAsOneEntryAfterAFlush() {
        // Proves group commit: many records, one flush, one FUA entry write; waiters learn it is durable.
        JournalWriter writer = writer(device, 4);
        for (int i = 0; i < 50; i++) {
            assertThat(writer.appendRemove(0, i * 8L, 8)).isEqualTo(1);
        }
        assertThat(commit(writer)).isEqualTo(IoResult.OK);
        assertThat(writer.entriesWritten()).isEqualTo(1);
        assertThat(writer.durableSequence()).isEqualTo(1);
        assertThat(durable).containsExactly(1L);
        assertThat(device.counters().completed(DeviceOp.FLUSH)).isEqualTo(1);
        assertThat(device.counters().completed(DeviceOp.WRITE)).isEqualTo(1);
    }

    @Test
    void recordsNobodyWaitsForAreWrittenAfterTheJournalDelay() {
        // Proves the journal delay (bcache: 100 ms): nothing before it, the entry right after it.
        JournalWriter writer = writer(device, 4);
        writer.appendRemove(0, 0, 8);
        loop.runUntil(DELAY_NS - 1);
        assertThat(writer.entriesWritten()).isZero();
        loop.runUntilIdle();
        assertThat(writer.entriesWritten()).isEqualTo(1);
        assertThat(loop.nowNs()).isGreaterThanOrEqualTo(DELAY_NS);
    }

    @Test
    void entriesChainSoRecoveryReadsBackEveryRecordInOrder() {
        // Proves the written ring is what recovery expects: hash-chained entries, records in order, next position.
        JournalWriter writer = writer(device, 4);
        List<JournalRecord> appended = new ArrayList<>();
        for (int entry = 0; entry < 12; entry++) {
            for (int i = 0; i < 400; i++) { // more than one 64 KiB entry's worth sometimes
                JournalRecord record = new JournalRecord.ExtentRemove(0, entry * 1000L + i, 1);
                appended.add(record);
                writer.append(record);
            }
            assertThat(commit(writer)).isEqualTo(IoResult.OK);
        }
        JournalRecovery recovery = assertDoesNotThrow(() -> JournalRecovery.recover(ring(4), BUCKET_BYTES));
        List<JournalRecord> replayed = new ArrayList<>();
        for (JournalEntry entry : recovery.replay()) {
            replayed.addAll(entry.records());
        }
        assertThat(replayed).isEqualTo(appended);
        assertThat(recovery.next()).isEqualTo(writer.position());
    }

    @Test
    void blockCrcsAreAppendedInRecordsOfAtMost512AndReadBackInOrder() {
        // Proves appendBlockCrcs (docs/FORMAT.md §5.2 type 9): 1000 CRCs handed from an offset in the caller's array
        // become two records (512 + 488 blocks) that recovery reads back with the right blocks and values.
        JournalWriter writer = writer(device, 4);
        int[] crcs = new int[1003];
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = i * 31 + 7;
        }
        writer.appendBlockCrcs(9, 4, 100, 1000, crcs, 3);
        assertThat(commit(writer)).isEqualTo(IoResult.OK);
        JournalRecovery recovery = assertDoesNotThrow(() -> JournalRecovery.recover(ring(4), BUCKET_BYTES));
        List<JournalRecord> replayed = new ArrayList<>();
        for (JournalEntry entry : recovery.replay()) {
            replayed.addAll(entry.records());
        }
        assertThat(replayed).containsExactly(
                new JournalRecord.BlockCrcs(9, 4, 100, java.util.Arrays.copyOfRange(crcs, 3, 3 + 512)),
                new JournalRecord.BlockCrcs(9, 4, 612, java.util.Arrays.copyOfRange(crcs, 3 + 512, 1003)));
    }

    @Test
    void recoveryInStepsTakesOneBoundedPieceAtATimeAndEndsWithTheSameResult() throws Exception {
        // Proves the stepped recovery open uses: first entries a bucket a step, the 4 KiB search 64 blocks a step,
        // the chain walk an entry a step, the search for the last CheckpointDone 4 walked entries a step; and it
        // finds what the one-call form finds.
        JournalWriter writer = writer(device, 4);
        int entries = 12;
        for (int entry = 0; entry < entries; entry++) {
            for (int i = 0; i < 100; i++) {
                writer.append(new JournalRecord.ExtentRemove(0, entry * 1000L + i, 1));
            }
            assertThat(commit(writer)).isEqualTo(IoResult.OK);
        }
        byte[] ring = ring(4);
        JournalRecovery.Steps steps = new JournalRecovery.Steps(ring, BUCKET_BYTES, new java.util.BitSet());
        int taken = 1;
        while (!steps.step()) {
            taken++;
        }
        int blocks = ring.length / 4096;
        // 4 first-entry steps, 128 blocks / 64 = 2 search steps, 1 to start the walk, 12 entries + the stop,
        // 12 walked entries / 4 = 3 CheckpointDone search steps, 1 to finish.
        int searchSteps = entries / JournalRecovery.Steps.ENTRIES_PER_SEARCH_STEP;
        assertThat(taken).isEqualTo(4 + blocks / JournalRecovery.Steps.BLOCKS_PER_STEP + 1 + entries + 1
                + searchSteps + 1);
        JournalRecovery whole = JournalRecovery.recover(ring, BUCKET_BYTES);
        assertThat(steps.result().replay()).isEqualTo(whole.replay());
        assertThat(steps.result().checkpoint()).isEqualTo(whole.checkpoint());
        assertThat(steps.result().next()).isEqualTo(whole.next()).isEqualTo(writer.position());
    }

    @Test
    void aFailedFlushFailsThisAndEveryLaterCommit() {
        // Proves durability-contract item 5 (docs/ARCHITECTURE.md §5): after a failure nothing is reported durable
        // again.
        FaultyDevice faulty = new FaultyDevice(device, loop, FaultPlan.none(), new Prng(1));
        JournalWriter writer = writer(faulty, 4);
        writer.appendRemove(0, 0, 8);
        faulty.failNext(1);
        IoResult first = commit(writer);
        assertThat(first.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(first.message()).contains("flush before journal entry 1");
        writer.appendRemove(0, 8, 8);
        assertThat(commit(writer).status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(writer.failed()).isTrue();
        assertThat(durable).isEmpty();
    }

    @Test
    void aFullRingWaitsForACheckpointAndTheReserveLetsTheCheckpointFinish() {
        // Proves ring reuse: writing stops before overwriting needed entries, asks for a checkpoint, and the
        // reserve bucket takes the checkpoint's own record, after which writing resumes.
        JournalWriter writer = writer(device, 3);
        int[] pressure = {0};
        writer.setPressureListener(() -> pressure[0]++);
        IoResult[] last = new IoResult[1];
        for (int i = 0; i < 60 && !writer.waitingForRing(); i++) {
            for (int r = 0; r < 1000; r++) {
                writer.appendRemove(0, r, 1);
            }
            writer.commit(result -> last[0] = result);
            loop.runUntilIdle();
        }
        assertThat(writer.waitingForRing()).isTrue();
        assertThat(pressure[0]).isPositive();
        long checkpointStart = writer.checkpointStartSequence();
        IoResult[] checkpoint = new IoResult[1];
        writer.appendCheckpointDone(new JournalRecord.CheckpointDone(checkpointStart, List.of(), 0, 0),
                result -> checkpoint[0] = result);
        loop.runUntilIdle();
        assertThat(checkpoint[0]).isEqualTo(IoResult.OK);
        writer.checkpointDurable(checkpointStart);
        writer.appendRemove(0, 0, 1);
        assertThat(commit(writer)).isEqualTo(IoResult.OK);
        assertThat(writer.waitingForRing()).isFalse();
    }

    @Test
    void aCheckpointCompletesWhenMoreThanABucketOfRecordsQueuedBehindTheFullRing() throws Exception {
        // Proves the completion record cannot be starved: with the ring full, records of more than a ring bucket are
        // appended and committed while the checkpoint runs; its completion record still goes into the first entry
        // not written, which the reserve bucket takes, and the ring frees. Appended at the tail, behind the 200 KiB
        // queued there, it waited forever: the reserve filled before it, and only it could free the ring.
        JournalWriter writer = writer(device, 3);
        for (int i = 0; i < 60 && !writer.waitingForRing(); i++) {
            for (int r = 0; r < 1000; r++) {
                writer.appendRemove(0, r, 1);
            }
            writer.commit(result -> { });
            loop.runUntilIdle();
        }
        assertThat(writer.waitingForRing()).isTrue();
        long checkpointStart = writer.checkpointStartSequence();
        List<IoResult> queued = new ArrayList<>();
        for (int i = 0; i < 14; i++) { // 14 x 1000 records of 15 bytes: 205 KiB, more than the 128 KiB reserve
            for (int r = 0; r < 1000; r++) {
                writer.appendRemove(0, r, 1);
            }
            writer.commit(queued::add);
        }
        loop.runUntilIdle();
        assertThat(queued).as("nothing is written while the ring is full").isEmpty();
        IoResult[] checkpoint = new IoResult[1];
        writer.appendCheckpointDone(new JournalRecord.CheckpointDone(checkpointStart, List.of(), 0, 0), result -> {
            checkpoint[0] = result;
            writer.checkpointDurable(checkpointStart); // as the checkpoint writer does when its record is durable
        });
        loop.runUntilIdle();
        assertThat(checkpoint[0]).isEqualTo(IoResult.OK);
        assertThat(queued).hasSize(14).containsOnly(IoResult.OK);
        assertThat(writer.waitingForRing()).isFalse();
        JournalRecovery recovered = JournalRecovery.recover(ring(3), BUCKET_BYTES);
        assertThat(recovered.checkpoint().checkpointStartSequence()).isEqualTo(checkpointStart);
        assertThat(recovered.next().nextSequence()).isEqualTo(writer.durableSequence() + 1);
    }

    private static <T> T assertDoesNotThrow(ThrowingSupplier<T> supplier) {
        try {
            return supplier.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}

package io.blockcache.journal;

import static io.blockcache.loop.Checks.check;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.JournalRecordCodec;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Group commit of index updates into the journal ring (docs/FORMAT.md §5 and §7).
 *
 * <p>Records collect in open entries in memory. An entry is written when a caller needs it durable
 * ({@link #commit}), when the journal delay has passed since its first record, or when it is full. Each
 * write is: flush the cache device (so every data write that completed before its records were appended is
 * durable first), then write the entry with FUA. One entry is in flight at a time: entry N+1 is submitted
 * only after entry N is durable, which is what lets replay tell a torn tail from corruption.
 *
 * <p>When the next entry would have to overwrite a ring bucket that replay still needs, writing waits and
 * the pressure listener is told; a checkpoint frees the ring ({@link #checkpointDurable}). The last reusable
 * ring bucket is a reserve that only the entry holding a checkpoint's completion record may use
 * ({@link #appendCheckpointDone}): without it, a full ring could not take the record that frees it. That record goes
 * into the first entry not yet written, for which every open entry keeps room: appended at the tail instead, it
 * queued behind every record appended while the ring waited, and once those outgrew the reserve bucket the journal
 * never wrote again (docs/FORMAT.md §7 rule 9).
 *
 * <p>Failure is final (docs/ARCHITECTURE.md §5 item 5): after a failed flush or write, every waiting and later
 * commit fails.
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class JournalWriter implements MetadataJournal {
    /** Entries kept for reuse: one being written and one or two filling is the usual state. */
    private static final int SPARE_ENTRIES_MAX = 4;
    /** Block CRCs per record at most: 2 KiB of CRCs (2 MiB of data), so a record fits the smallest entry (4 KiB). */
    static final int BLOCK_CRCS_PER_RECORD = 512;

    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final JournalRing ring;
    private final long delayNs;
    private final int entryBytesMax;
    /** Room every open entry keeps free for a CheckpointDone record, so that the first one can always take it. */
    private final int checkpointDoneRoomBytes;
    private final LongConsumer onDurable;
    private final ArrayDeque<OpenEntry> open = new ArrayDeque<>();
    /** Written entries kept for reuse, with their arrays. */
    private final ArrayDeque<OpenEntry> spare = new ArrayDeque<>();
    private Runnable pressureListener = () -> { };

    private long ringOffsetBytes;
    private long nextSequence;
    private int previousEntryCrc;
    private long checkpointSequence;
    private long durableSequence;
    private OpenEntry writing;
    private boolean waitingForRing;
    private boolean reserveOpen;
    private Timer delayTimer;
    private IoResult failure;
    private long entriesWritten;
    private long bytesWritten;
    private boolean appending;

    /**
     * @param position where the journal continues (from recovery or a fresh format)
     * @param delayNs the journal delay: how long a record may wait for a commit nobody asked for
     * @param entryBytesMax the largest entry, a multiple of 4 KiB, at most one bucket
     * @param checkpointBucketsMax the most buckets one checkpoint may take (its completion record names them all)
     * @param onDurable told the sequence of every entry that became durable (frees buckets for reuse)
     */
    public JournalWriter(EventLoop loop, BlockDevice cacheDevice, JournalRing ring, JournalPosition position,
                         long delayNs, int entryBytesMax, int checkpointBucketsMax, LongConsumer onDurable) {
        if (entryBytesMax % 4096 != 0 || entryBytesMax > ring.bucketSizeBytes()) {
            throw new IllegalArgumentException("entryBytesMax must be a multiple of 4 KiB and fit a bucket: "
                    + entryBytesMax);
        }
        this.checkpointDoneRoomBytes = JournalRecordCodec.checkpointDoneBytes(checkpointBucketsMax);
        if (entryBytesMax - checkpointDoneRoomBytes < 16 * 1024) {
            throw new IllegalArgumentException("an entry of " + entryBytesMax + " bytes cannot keep room for a"
                    + " checkpoint of " + checkpointBucketsMax + " buckets");
        }
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.ring = ring;
        this.delayNs = delayNs;
        this.entryBytesMax = entryBytesMax;
        this.onDurable = onDurable;
        this.ringOffsetBytes = position.ringOffsetBytes();
        this.nextSequence = position.nextSequence();
        this.previousEntryCrc = position.previousEntryCrc();
        this.checkpointSequence = position.checkpointSequence();
        this.durableSequence = position.nextSequence() - 1;
    }

    /** Sets who is told when the ring is (nearly) full: the checkpoint trigger. */
    public void setPressureListener(Runnable listener) {
        this.pressureListener = listener;
    }

    /** Appends one record; returns the sequence of the entry that will hold it. */
    public long append(JournalRecord record) {
        int bytes = JournalRecordCodec.encodedBytes(record);
        OpenEntry tail = tailWithRoom(bytes);
        JournalRecordCodec.encode(record, tail.room(bytes));
        return appended(tail);
    }

    /** The open entry the next record of {@code bytes} goes into: the last one, or a new one if it is full. */
    private OpenEntry tailWithRoom(int bytes) {
        OpenEntry tail = open.peekLast();
        if (tail == null
                || OpenEntry.roundUp(tail.encodedBytes() + bytes) > entryBytesMax - checkpointDoneRoomBytes) {
            if (tail != null) {
                tail.due = true; // full: write it without waiting for the delay
            }
            long sequence = tail == null ? sequenceAfterInFlight() : tail.sequence + 1;
            OpenEntry fresh = spare.pollFirst();
            tail = (fresh == null ? new OpenEntry() : fresh).reset(sequence);
            open.addLast(tail);
        }
        return tail;
    }

    /** A record was encoded into {@code tail}: counts it, arms the delay, writes what is due. */
    private long appended(OpenEntry tail) {
        tail.recordAppended();
        if (delayTimer == null && delayNs > 0) {
            delayTimer = loop.schedule(delayNs, this::delayExpired);
        } else if (delayNs == 0) {
            tail.due = true;
        }
        appending = true;
        try {
            kick();
        } finally {
            appending = false;
        }
        return tail.sequence;
    }

    /** The sequence the next appended record would get. */
    public long openSequence() {
        OpenEntry tail = open.peekLast();
        return tail == null ? sequenceAfterInFlight() : tail.sequence;
    }

    /**
     * Where a checkpoint starting now replays from: the first entry not yet written. Its records and those of the
     * entries after it up to now are in the checkpoint already; replaying them again changes nothing (docs/FORMAT.md
     * §5.3). Starting here, rather than at the entry the next record goes to, is what lets
     * {@link #appendCheckpointDone} put the completion record into the first entry not yet written, whatever queued
     * behind it.
     */
    public long checkpointStartSequence() {
        return sequenceAfterInFlight();
    }

    /**
     * Appends a checkpoint's completion record to the first entry not yet written (with no other entry queued before
     * it), lets that entry use the reserve ring bucket, and writes it; {@code durable} learns when it is durable.
     *
     * @throws IllegalStateException if that entry comes before the checkpoint's start (it was taken before
     *     {@link #checkpointStartSequence()} was asked)
     */
    public void appendCheckpointDone(JournalRecord.CheckpointDone record, IoCallback durable) {
        if (failure != null) {
            loop.execute(() -> durable.complete(failure));
            return;
        }
        OpenEntry head = open.peekFirst();
        if (head == null) {
            head = tailWithRoom(0);
        }
        check(head.sequence >= record.checkpointStartSequence(),
                "checkpoint starting at %s completes in entry %s before it", record.checkpointStartSequence(),
                head.sequence);
        int bytes = JournalRecordCodec.encodedBytes(record);
        check(OpenEntry.roundUp(head.encodedBytes() + bytes) <= entryBytesMax,
                "journal entry %s has no room for a checkpoint's completion (%s bytes)", head.sequence, bytes);
        JournalRecordCodec.encode(record, head.room(bytes));
        head.waiters.add(durable);
        head.due = true;
        reserveOpen = true;
        waitingForRing = false;
        appended(head);
    }

    private long sequenceAfterInFlight() {
        return writing == null ? nextSequence : writing.sequence + 1;
    }

    @Override
    public long appendInsert(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                             int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors,
                             long epoch) {
        // Encoded straight into the open entry, without a record object: one is appended per front-end write.
        int bytes = JournalRecordCodec.insertBytes(epoch != JournalRecord.EPOCH_NOT_RECORDED);
        OpenEntry tail = tailWithRoom(bytes);
        JournalRecordCodec.encodeInsert(tail.room(bytes), volumeId, startSector, lengthSectors,
                bucket, offsetInBucketSectors, generation, dirty, crc32c, crcCutHeadSectors, crcLengthSectors, epoch);
        return appended(tail);
    }

    @Override
    public long appendBlockCrcs(int bucket, int generation, int firstBlock, int count, int[] crcs, int from) {
        // Encoded straight into the open entry, like an insert: a large front-end write appends one per extent. In
        // records of at most BLOCK_CRCS_PER_RECORD, so that one always fits an entry of the smallest size.
        long sequence = 0;
        for (int done = 0; done < count; done += BLOCK_CRCS_PER_RECORD) {
            int n = Math.min(BLOCK_CRCS_PER_RECORD, count - done);
            int bytes = JournalRecordCodec.blockCrcsBytes(n);
            OpenEntry tail = tailWithRoom(bytes);
            JournalRecordCodec.encodeBlockCrcs(tail.room(bytes), bucket, generation, firstBlock + done, n, crcs,
                    from + done);
            sequence = appended(tail);
        }
        return sequence;
    }

    @Override
    public long appendRemove(int volumeId, long startSector, int lengthSectors) {
        return append(new JournalRecord.ExtentRemove(volumeId, startSector, lengthSectors));
    }

    @Override
    public long appendClean(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation) {
        return append(new JournalRecord.ExtentClean(volumeId, startSector, lengthSectors, bucket,
                offsetInBucketSectors, generation));
    }

    @Override
    public long appendEpochsVoid(int volumeId) {
        return append(new JournalRecord.EpochsVoid(volumeId));
    }

    @Override
    public long recordGeneration(int bucket, int generation) {
        return append(new JournalRecord.BucketGeneration(bucket, generation));
    }

    @Override
    public void commit(IoCallback callback) {
        if (failure != null) {
            loop.execute(() -> callback.complete(failure));
            return;
        }
        OpenEntry tail = open.peekLast();
        if (tail == null) {
            if (writing == null) {
                loop.execute(() -> callback.complete(IoResult.OK));
            } else {
                writing.waiters.add(callback); // everything appended is in the entry being written
            }
            return;
        }
        tail.waiters.add(callback);
        for (OpenEntry entry : open) {
            entry.due = true;
        }
        kick();
    }

    @Override
    public long durableSequence() {
        return durableSequence;
    }

    /**
     * True while a record is being appended: the change it describes is not applied yet ("journal first, then
     * apply"), so nothing may read the state it changes (a checkpoint may not start).
     */
    public boolean appending() {
        return appending;
    }

    /** True once a journal write or flush has failed; nothing will be reported durable again. */
    public boolean failed() {
        return failure != null;
    }

    /**
     * A checkpoint starting at {@code startSequence} is durable: entries before it are no longer needed, and
     * later entries say so in their headers.
     */
    public void checkpointDurable(long startSequence) {
        checkpointSequence = Math.max(checkpointSequence, startSequence);
        reserveOpen = false;
        if (waitingForRing) {
            waitingForRing = false;
            kick();
        }
    }

    /** True while commits wait for a checkpoint to free ring space. */
    public boolean waitingForRing() {
        return waitingForRing;
    }

    /** Start sequence of the newest durable checkpoint (0 = none). */
    public long checkpointSequence() {
        return checkpointSequence;
    }

    /** Ring buckets holding entries that replay still needs; a checkpoint lowers it. */
    public int ringBucketsInUse() {
        return ring.bucketsInUse(checkpointSequence);
    }

    /** The ring. */
    public JournalRing ring() {
        return ring;
    }

    /** Entries written since start. */
    public long entriesWritten() {
        return entriesWritten;
    }

    /** Bytes of entries written since start. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /** Where the journal will continue; for a clean shutdown and for tests. */
    public JournalPosition position() {
        return new JournalPosition(ringOffsetBytes, nextSequence, previousEntryCrc, checkpointSequence);
    }

    private void delayExpired() {
        delayTimer = null;
        for (OpenEntry entry : open) {
            entry.due = true;
        }
        kick();
    }

    private void kick() {
        if (writing != null || failure != null || waitingForRing) {
            return;
        }
        OpenEntry head = open.peekFirst();
        if (head == null || !head.due) {
            return;
        }
        int entryBytes = OpenEntry.roundUp(head.encodedBytes());
        long offset = placement(entryBytes);
        boolean newBucket = offset % ring.bucketSizeBytes() == 0;
        if (newBucket && (!ring.reusable(offset, checkpointSequence)
                || (!reserveOpen && ring.reusableBuckets(checkpointSequence) <= 1))) {
            waitingForRing = true;
            pressureListener.run();
            return;
        }
        check(head.sequence == durableSequence + 1,
                "journal entry %s submitted while %s is the last durable one", head.sequence, durableSequence);
        check(offset % 4096 == 0 && offset % ring.bucketSizeBytes() + entryBytes <= ring.bucketSizeBytes(),
                "journal entry %s at ring offset %s (%s bytes) is unaligned or straddles a bucket", head.sequence,
                offset, entryBytes);
        open.removeFirst();
        if (open.isEmpty() && delayTimer != null) {
            delayTimer.cancel();
            delayTimer = null;
        }
        ByteBuffer sealed = head.seal(checkpointSequence, previousEntryCrc);
        writing = head;
        cacheDevice.flush(flushed -> {
            if (!flushed.ok()) {
                fail(head, "cache device flush before journal entry " + head.sequence + " failed: "
                        + flushed.message());
                return;
            }
            cacheDevice.write(ring.deviceOffset(offset), sealed, true,
                    written -> entryWritten(head, offset, written));
        });
        if (ring.bucketsInUse(checkpointSequence) * 2 > ring.buckets()) {
            pressureListener.run();
        }
    }

    /** The ring offset the next entry of {@code entryBytes} goes to: here, or the next bucket if it does not fit. */
    private long placement(int entryBytes) {
        long intoBucket = ringOffsetBytes % ring.bucketSizeBytes();
        long offset = ringOffsetBytes;
        if (intoBucket + entryBytes > ring.bucketSizeBytes()) {
            offset = (ringOffsetBytes - intoBucket + ring.bucketSizeBytes()) % ring.ringBytes();
        }
        return offset;
    }

    private void entryWritten(OpenEntry entry, long offset, IoResult written) {
        check(writing == entry, "journal entry %s completed but %s is the one in flight", entry.sequence,
                writing == null ? "none" : writing.sequence);
        if (!written.ok()) {
            fail(entry, "journal entry " + entry.sequence + " write failed: " + written.message());
            return;
        }
        writing = null;
        ring.noteEntry(offset, entry.sequence);
        ringOffsetBytes = (offset + entry.entryBytes()) % ring.ringBytes();
        previousEntryCrc = entry.storedCrc();
        nextSequence = entry.sequence + 1;
        durableSequence = entry.sequence;
        entriesWritten++;
        bytesWritten += entry.entryBytes();
        onDurable.accept(entry.sequence);
        for (int i = 0; i < entry.waiters.size(); i++) { // indexed: no iterator per entry
            entry.waiters.get(i).complete(IoResult.OK);
        }
        if (spare.size() < SPARE_ENTRIES_MAX) {
            spare.addFirst(entry); // written: nothing refers to it any more
        }
        kick();
    }

    private void fail(OpenEntry entry, String message) {
        writing = null;
        failure = IoResult.error(IoStatus.IO_ERROR, message + "; the journal accepts no more commits");
        List<IoCallback> waiters = new ArrayList<>(entry.waiters);
        for (OpenEntry other : open) {
            waiters.addAll(other.waiters);
            other.waiters.clear();
        }
        for (IoCallback waiter : waiters) {
            waiter.complete(failure);
        }
    }
}

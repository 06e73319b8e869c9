package io.blockcache.backinglog;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.format.BackingLogLayout;
import io.blockcache.format.BackingLogRecord;
import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Writes one group of records into a backing log and commits it (docs/FORMAT.md §4.4). The caller reserves a
 * record, fills the buffer it is given (with a cache read, say) and reports it filled; records are packed back to back
 * from log byte 4096 and written in chunks of up to {@link #CHUNK_BYTES_MAX}, each as soon as it is closed and all its
 * records are filled, so the log is written sequentially with large writes. {@link #commit} then writes the
 * descriptors, waits for every write, flushes, and writes the commit block with FUA: the group is durable and
 * atomic from that write on, and not before.
 *
 * <p>The log must be retired before a group starts ({@link #retire}; {@link LogReplay} retires what it replays):
 * the group overwrites the body of the last one, and a valid commit over a half-overwritten body would read as a
 * damaged log. A failed write, flush or {@link #fail} ends the group: {@link #commit} then reports the failure and
 * writes no commit block. A group is used once.
 *
 * <p>Thread rule: the device's owning loop.
 */
public final class LogGroupWriter {
    /** The largest chunk: one write of this size keeps a disk streaming. */
    public static final int CHUNK_BYTES_MAX = 1 << 20;

    /** A reserved record: fill {@link #buffer()} completely, then call {@link #filled}. */
    public static final class Slot {
        private final Chunk chunk;
        private final ByteBuffer buffer;
        private boolean done;

        private Slot(Chunk chunk, ByteBuffer buffer) {
            this.chunk = chunk;
            this.buffer = buffer;
        }

        /** Exactly the record's bytes: a slice of the chunk, position 0, limit its length. */
        public ByteBuffer buffer() {
            return buffer;
        }
    }

    /**
     * Log bytes {@code [startBytes, + usedBytes)} in one buffer, written with one device write. Its buffer goes back
     * once it is both written and checksummed.
     */
    private static final class Chunk {
        final long startBytes;
        final ByteBuffer buffer;
        int usedBytes;
        int unfilledSlots;
        boolean closed;
        boolean checksummed;
        boolean written;
        boolean released;

        Chunk(long startBytes, ByteBuffer buffer) {
            this.startBytes = startBytes;
            this.buffer = buffer;
        }

        boolean ready() {
            return closed && unfilledSlots == 0;
        }
    }

    private final BlockDevice device;
    private final BackingLogRegion region;
    private final ChunkBuffers buffers;
    private final long sequence;
    private final long firstEpoch;
    private final List<BackingLogRecord> records = new ArrayList<>();
    /** Chunks not yet checksummed, in log order: the body CRC runs over the body in order. */
    private final ArrayDeque<Chunk> unchecksummed = new ArrayDeque<>();
    /** Chunks not yet issued, in log order. */
    private final List<Chunk> unissued = new ArrayList<>();
    private final CRC32C bodyCrc = new CRC32C();
    private long dataBytes;
    private long bufferedBytes;
    private Runnable bufferFreed = () -> { };
    private Chunk open;
    private int writesInFlight;
    private String failure;
    private long lastEpoch = -1;
    private Consumer<String> committed;
    private boolean descriptorsIssued;
    private boolean flushIssued;

    /**
     * @param buffers where chunk buffers come from and go back to (kept across groups)
     * @param sequence the group's number on this device, at least 1
     * @param firstEpoch the oldest flush epoch the group holds
     */
    public LogGroupWriter(BlockDevice device, BackingLogRegion region, ChunkBuffers buffers, long sequence,
                          long firstEpoch) {
        Checks.require(sequence >= 1 && firstEpoch >= 0, "sequence %d and first epoch %d", sequence, firstEpoch);
        this.device = device;
        this.region = region;
        this.buffers = buffers;
        this.sequence = sequence;
        this.firstEpoch = firstEpoch;
    }

    /**
     * Reserves the next record for {@code [volumeSector, + lengthSectors)} of the volume, or returns null if the
     * group would no longer fit in the log (the caller then commits what it has). The record's padding up to 4 KiB is
     * zeroed here.
     */
    public Slot reserve(long volumeSector, int lengthSectors) {
        Checks.check(committed == null && failure == null, "reserve on a group that is committing or failed");
        BackingLogRecord record = new BackingLogRecord(volumeSector, lengthSectors);
        Checks.require(volumeSector + lengthSectors <= region.volumeSectors(),
                "record [%d, + %d) reaches past the volume's %d sectors", volumeSector, lengthSectors,
                region.volumeSectors());
        long slotBytes = BackingLogLayout.recordSlotBytes(lengthSectors);
        if (!region.layout().fits(records.size() + 1L, dataBytes + slotBytes)) {
            return null;
        }
        if (open == null || open.usedBytes + slotBytes > open.buffer.capacity()) {
            closeOpenChunk();
            open = new Chunk(BackingLogLayout.DATA_OFFSET_BYTES + dataBytes, buffers.take((int) slotBytes));
            bufferedBytes += open.buffer.capacity();
            unchecksummed.add(open);
            unissued.add(open);
        }
        int from = open.usedBytes;
        int lengthBytes = lengthSectors * BlockDevice.SECTOR_BYTES;
        for (int i = from + lengthBytes; i < from + slotBytes; i++) {
            open.buffer.put(i, (byte) 0);
        }
        open.usedBytes += (int) slotBytes;
        open.unfilledSlots++;
        records.add(record);
        dataBytes += slotBytes;
        return new Slot(open, open.buffer.slice(from, lengthBytes));
    }

    /** The slot's buffer holds the record's data: its chunk may now be written. */
    public void filled(Slot slot) {
        Checks.check(!slot.done, "slot reported filled twice");
        slot.done = true;
        slot.chunk.unfilledSlots--;
        progress();
    }

    /**
     * Ends the group with {@code reason} (a cache read failed, say): {@link #commit} will report it. Slots reserved
     * before are still to be reported {@link #filled} once nothing writes into their buffers any more, so that the
     * buffers can be reused.
     */
    public void fail(String reason) {
        if (failure == null) {
            failure = reason;
        }
        progress();
    }

    /** Records reserved so far. */
    public int records() {
        return records.size();
    }

    /** Log bytes the records take so far (each rounded up to 4 KiB). */
    public long dataBytes() {
        return dataBytes;
    }

    /**
     * Closes the group as holding epochs up to {@code lastEpoch} and commits it once every reserved record is filled:
     * descriptors, every write completed, a flush, the commit block with FUA. {@code done} gets null once the group is
     * durable, else why not (then no commit block was written, or its write failed and the log must be retired before
     * the next group).
     */
    public void commit(long lastEpoch, Consumer<String> done) {
        Checks.check(committed == null, "commit called twice");
        Checks.require(lastEpoch >= firstEpoch, "last epoch %d before first %d", lastEpoch, firstEpoch);
        if (records.isEmpty() && failure == null) {
            failure = "a backing log group needs at least one record";
        }
        this.lastEpoch = lastEpoch;
        this.committed = done;
        closeOpenChunk();
        progress();
    }

    /** Writes a zero block over the commit block with FUA: the log holds no group from then on. */
    public static void retire(BlockDevice device, BackingLogRegion region, Consumer<String> done) {
        ByteBuffer zero = ByteBuffer.allocate(BackingLogCommit.BYTES);
        device.write(region.logBytes(0), zero, true, result -> done.accept(result.ok() ? null
                : "retiring the backing log: " + result.message()));
    }

    private void closeOpenChunk() {
        if (open != null) {
            open.closed = true;
            open = null;
        }
    }

    /** Moves everything forward that can move: checksums in order, chunk writes, then the commit's steps. */
    private void progress() {
        while (!unchecksummed.isEmpty() && unchecksummed.peekFirst().ready()) {
            Chunk chunk = unchecksummed.pollFirst();
            bodyCrc.update(chunk.buffer.duplicate().position(0).limit(chunk.usedBytes));
            chunk.checksummed = true;
            release(chunk);
        }
        for (int i = 0; i < unissued.size(); ) {
            Chunk chunk = unissued.get(i);
            if (failure != null) {
                chunk.written = true; // never written: its buffer may go back once checksummed
                unissued.remove(i);
                release(chunk);
            } else if (chunk.ready()) {
                unissued.remove(i);
                issue(chunk);
            } else {
                i++;
            }
        }
        if (committed == null || writesInFlight > 0) {
            return;
        }
        if (failure != null) {
            Consumer<String> done = committed;
            committed = c -> { };
            done.accept(failure);
            return;
        }
        if (!unchecksummed.isEmpty()) {
            return; // records reserved and not yet filled
        }
        if (!descriptorsIssued) {
            descriptorsIssued = true;
            byte[] descriptors = BackingLogRecord.encode(records);
            bodyCrc.update(descriptors);
            write(BackingLogLayout.descriptorsOffsetBytes(dataBytes), ByteBuffer.wrap(descriptors), false, null);
            return;
        }
        if (!flushIssued) {
            flushIssued = true;
            writesInFlight++;
            device.flush(result -> completed(result, "flushing the backing log", null));
            return;
        }
        BackingLogCommit commit = new BackingLogCommit(region.backingUuid(), sequence, firstEpoch, lastEpoch,
                records.size(), dataBytes, (int) bodyCrc.getValue());
        Consumer<String> done = committed;
        committed = c -> { };
        device.write(region.logBytes(0), ByteBuffer.wrap(commit.encode()), true, result -> done.accept(
                result.ok() ? null : "writing the backing log's commit block: " + result.message()));
    }

    private void release(Chunk chunk) {
        if (chunk.checksummed && chunk.written && !chunk.released) {
            chunk.released = true;
            bufferedBytes -= chunk.buffer.capacity();
            buffers.give(chunk.buffer);
            bufferFreed.run();
        }
    }

    /** Runs {@code listener} whenever a chunk's buffer is let go (a caller bounding {@link #bufferedBytes} goes on). */
    public void whenBufferFreed(Runnable listener) {
        bufferFreed = listener;
    }

    /** Bytes of chunk buffers this group holds now (reserved, or not yet written and checksummed). */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    private void issue(Chunk chunk) {
        write(chunk.startBytes, chunk.buffer.duplicate().position(0).limit(chunk.usedBytes), false, chunk);
    }

    private void write(long logRelativeBytes, ByteBuffer data, boolean fua, Chunk chunk) {
        writesInFlight++;
        device.write(region.logBytes(logRelativeBytes), data, fua,
                result -> completed(result, "writing the backing log at log byte " + logRelativeBytes, chunk));
    }

    private void completed(IoResult result, String what, Chunk chunk) {
        writesInFlight--;
        if (chunk != null) {
            chunk.written = true;
            release(chunk);
        }
        if (!result.ok() && failure == null) {
            failure = what + ": " + result.message();
        }
        progress();
    }
}

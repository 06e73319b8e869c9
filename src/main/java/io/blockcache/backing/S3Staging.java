package io.blockcache.backing;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The chunks of an {@link S3Device} staged in memory, and the uploads that make them durable: a write lands in its
 * chunk's buffer; a chunk is PUT whole when writes filled it, for a FUA write or a flush, or to make room (at most
 * {@link S3Device#STAGING_CHUNKS_MAX} chunks); a chunk written only in part is first completed by a GET of its old
 * object; at most one PUT per chunk is in flight, so PUTs of one key never overtake each other. Flushes wait here
 * for the PUTs of every write staged before them. A failed PUT or GET fails the waiting flushes, FUA writes and
 * writes waiting for room, and the next flush ({@link #takeUnreportedFailure}).
 *
 * <p>Also the chunks whose DELETE is in flight: a write to such a chunk waits until it ends.
 *
 * <p>Thread rule: the owning loop's thread only (sorted maps: their order reaches behaviour, which chunk is PUT
 * first); {@link #stagedChunks} from any.
 */
final class S3Staging {
    /** A request waiting for write {@code seq} to be durable. */
    record Waiter(long seq, Runnable onDurable, Consumer<IoResult> onFailure) {
    }

    /** A piece of a request waiting for something (a slot, the old chunk, a DELETE): retried, or failed. */
    record Parked(Runnable retry, Consumer<IoResult> onFailure) {
    }

    private final S3Store store;
    private final S3Volume volume;
    private final S3Io io;
    private final int blockBytes;
    private final TreeMap<Long, S3Chunk> staged = new TreeMap<>();
    /** Chunks whose DELETE is in flight, with what waits for it; bounded by the engine's discards in flight. */
    private final TreeMap<Long, List<Parked>> deleting = new TreeMap<>();
    /** Write pieces waiting for a staging slot; bounded by the engine's writes in flight. */
    private final ArrayDeque<Parked> waitingForRoom = new ArrayDeque<>();
    /** Flushes waiting for PUTs; bounded by the engine's flushes in flight. */
    private final List<Waiter> flushes = new ArrayList<>();
    private long writeSeq;
    private String unreportedFailure;
    private volatile int stagedCount;

    S3Staging(S3Store store, S3Volume volume, S3Io io, int blockBytes) {
        this.store = store;
        this.volume = volume;
        this.io = io;
        this.blockBytes = blockBytes;
    }

    /** Chunks staged now; any thread. */
    int stagedChunks() {
        return stagedCount;
    }

    /** The staged chunk {@code index}, or null. */
    S3Chunk get(long index) {
        return staged.get(index);
    }

    /** True if chunk {@code index} is staged or being deleted (a discard leaves it alone). */
    boolean busy(long index) {
        return staged.containsKey(index) || deleting.containsKey(index);
    }

    // ---- writes

    /** Copies one write piece into its chunk's buffer, or waits for a slot or a DELETE. */
    void stage(long index, int offsetInChunk, int lengthBytes, ByteBuffer src, int srcIndex, boolean fua,
               S3Request.Piece done) {
        if (io.closed()) {
            done.finish(io.closedResult());
            return;
        }
        List<Parked> deleteWaiters = deleting.get(index);
        if (deleteWaiters != null) {
            deleteWaiters.add(new Parked(() -> stage(index, offsetInChunk, lengthBytes, src, srcIndex, fua, done),
                    done::finish));
            return;
        }
        S3Chunk chunk = staged.get(index);
        if (chunk == null) {
            if (staged.size() >= S3Device.STAGING_CHUNKS_MAX) {
                waitingForRoom.add(new Parked(() -> stage(index, offsetInChunk, lengthBytes, src, srcIndex, fua,
                        done), done::finish));
                makeRoom();
                return;
            }
            chunk = new S3Chunk(index, volume.chunkLengthBytes(index), blockBytes);
            staged.put(index, chunk);
            stagedCount = staged.size();
        }
        src.get(srcIndex, chunk.data, offsetInChunk, lengthBytes);
        long seq = ++writeSeq;
        chunk.recordWrite(offsetInChunk / blockBytes, lengthBytes / blockBytes, seq);
        if (fua) {
            chunk.fuaWaiters.add(new Waiter(seq, () -> done.finish(IoResult.OK), done::finish));
            chunk.putWanted = true;
        } else {
            done.finish(IoResult.OK);
        }
        if (chunk.fullyWritten()) {
            chunk.putWanted = true; // complete: PUT it now rather than hold memory
        }
        if (!chunk.whole() && !chunk.baseFetching) {
            fetchBase(chunk); // started early, so the PUT that will need it does not wait as long
        }
        tryPut(chunk);
    }

    /** A write waits for a slot: PUT the least recently written chunk that is not on its way already. */
    private void makeRoom() {
        S3Chunk oldest = null;
        for (S3Chunk chunk : staged.values()) {
            if (chunk.putInFlight || chunk.putWanted) {
                return; // a PUT under way frees a slot when it ends
            }
            if (oldest == null || chunk.lastWriteSeq < oldest.lastWriteSeq) {
                oldest = chunk;
            }
        }
        if (oldest != null) {
            oldest.putWanted = true;
            tryPut(oldest);
        }
    }

    private void tryPut(S3Chunk chunk) {
        if (!chunk.putWanted || chunk.putInFlight || io.closed()) {
            return;
        }
        if (chunk.firstUnsentSeq == 0) {
            chunk.putWanted = false;
            afterChunkChange(chunk);
            return;
        }
        if (!chunk.whole()) {
            if (!chunk.baseFetching) {
                fetchBase(chunk);
            }
            return;
        }
        byte[] body = chunk.startPut();
        io.submit(S3Io.Kind.PUT, chunk.lengthBytes, () -> store.put(chunk.objectName, body, chunk.lengthBytes),
                result -> putDone(chunk, result));
    }

    private void putDone(S3Chunk chunk, IoResult result) {
        chunk.endPut(result.ok());
        if (io.closed()) {
            return;
        }
        List<Waiter> waiting = List.copyOf(chunk.fuaWaiters);
        chunk.fuaWaiters.clear();
        for (Waiter waiter : waiting) {
            if (result.ok() && waiter.seq() <= chunk.inFlightLastSeq) {
                waiter.onDurable().run();
            } else if (!result.ok() && waiter.seq() <= chunk.inFlightLastSeq) {
                waiter.onFailure().accept(result);
            } else {
                chunk.fuaWaiters.add(waiter); // written during the PUT: the next PUT covers it
                chunk.putWanted = true;
            }
        }
        if (!result.ok()) {
            failWaiting(IoResult.error(IoStatus.IO_ERROR, "PUT of " + chunk.objectName + " failed: "
                    + result.message()));
        }
        tryPut(chunk);
        afterChunkChange(chunk);
    }

    /** A PUT failed: flushes waiting and writes waiting for room fail, and so does the next flush. */
    private void failWaiting(IoResult failure) {
        unreportedFailure = failure.message();
        List<Waiter> failedFlushes = List.copyOf(flushes);
        flushes.clear();
        failedFlushes.forEach(flush -> flush.onFailure().accept(failure));
        List<Parked> failedWrites = List.copyOf(waitingForRoom);
        waitingForRoom.clear();
        failedWrites.forEach(write -> write.onFailure().accept(failure));
    }

    /** Evicts a chunk that is durable and idle, lets writes waiting for room in, and checks the flushes. */
    private void afterChunkChange(S3Chunk chunk) {
        if (!chunk.dirty() && !chunk.baseFetching && chunk.baseWaiters.isEmpty() && chunk.fuaWaiters.isEmpty()
                && staged.get(chunk.index) == chunk) {
            staged.remove(chunk.index);
            stagedCount = staged.size();
        }
        while (!waitingForRoom.isEmpty() && staged.size() < S3Device.STAGING_CHUNKS_MAX) {
            waitingForRoom.poll().retry().run();
        }
        if (!waitingForRoom.isEmpty()) {
            makeRoom();
        }
        checkFlushes();
    }

    // ---- the old chunk

    /** A read of a staged chunk's blocks that no write filled waits for the old object's bytes. */
    void awaitBase(S3Chunk chunk, Parked reader) {
        chunk.baseWaiters.add(reader);
        if (!chunk.baseFetching) {
            fetchBase(chunk);
        }
    }

    private void fetchBase(S3Chunk chunk) {
        chunk.baseFetching = true;
        byte[] base = new byte[chunk.lengthBytes];
        io.submit(S3Io.Kind.GET, chunk.lengthBytes,
                () -> store.getRange(chunk.objectName, 0, chunk.lengthBytes, base, 0),
                result -> baseDone(chunk, base, result));
    }

    private void baseDone(S3Chunk chunk, byte[] base, IoResult result) {
        chunk.baseFetching = false;
        if (io.closed() || staged.get(chunk.index) != chunk) {
            return; // evicted (it was written whole) or closed: nobody needs these bytes
        }
        if (result.ok()) {
            chunk.fillFromBase(base, blockBytes);
        }
        List<Parked> readers = List.copyOf(chunk.baseWaiters);
        chunk.baseWaiters.clear();
        if (!result.ok()) {
            IoResult failure = IoResult.error(IoStatus.IO_ERROR, "GET of " + chunk.objectName + " failed: "
                    + result.message());
            readers.forEach(reader -> reader.onFailure().accept(failure));
            if (chunk.putWanted) {
                chunk.putWanted = false;
                List<Waiter> fua = List.copyOf(chunk.fuaWaiters);
                chunk.fuaWaiters.clear();
                fua.forEach(waiter -> waiter.onFailure().accept(failure));
                failWaiting(failure);
            }
            afterChunkChange(chunk);
            return;
        }
        readers.forEach(reader -> reader.retry().run());
        tryPut(chunk);
        afterChunkChange(chunk);
    }

    // ---- flush and discard

    /** The failure a flush must report since the last one (once), or null. */
    String takeUnreportedFailure() {
        String failure = unreportedFailure;
        unreportedFailure = null;
        return failure;
    }

    /** PUTs every chunk holding a write staged so far; {@code flush} runs once they are all durable. */
    void flush(Runnable onDurable, Consumer<IoResult> onFailure) {
        long target = writeSeq;
        for (S3Chunk chunk : List.copyOf(staged.values())) {
            if (chunk.firstUnsentSeq != 0 && chunk.firstUnsentSeq <= target) {
                chunk.putWanted = true;
                tryPut(chunk);
            }
        }
        flushes.add(new Waiter(target, onDurable, onFailure));
        checkFlushes();
    }

    private void checkFlushes() {
        if (flushes.isEmpty()) {
            return;
        }
        long oldestUndurable = Long.MAX_VALUE;
        for (S3Chunk chunk : staged.values()) {
            long oldest = chunk.oldestUndurableSeq();
            if (oldest != 0) {
                oldestUndurable = Math.min(oldestUndurable, oldest);
            }
        }
        List<Waiter> done = new ArrayList<>();
        for (Waiter flush : flushes) {
            if (flush.seq() < oldestUndurable) {
                done.add(flush);
            }
        }
        flushes.removeAll(done);
        done.forEach(flush -> flush.onDurable().run());
    }

    /** Chunk {@code index}'s DELETE starts: writes to it wait until {@link #deleteEnded}. */
    void deleteStarted(long index) {
        deleting.put(index, new ArrayList<>());
    }

    /** Chunk {@code index}'s DELETE ended: returns the writes that waited for it, for the caller to retry. */
    List<Parked> deleteEnded(long index) {
        List<Parked> waiters = deleting.remove(index);
        return waiters == null ? List.of() : waiters;
    }

    /** Drops everything staged and fails everything waiting with {@code result} (the device is closed). */
    void failAll(IoResult result) {
        List<Waiter> waiters = new ArrayList<>(flushes);
        flushes.clear();
        List<Parked> parked = new ArrayList<>(waitingForRoom);
        waitingForRoom.clear();
        for (S3Chunk chunk : staged.values()) {
            waiters.addAll(chunk.fuaWaiters);
            parked.addAll(chunk.baseWaiters);
        }
        for (Map.Entry<Long, List<Parked>> entry : deleting.entrySet()) {
            parked.addAll(entry.getValue());
        }
        staged.clear();
        stagedCount = 0;
        deleting.clear();
        waiters.forEach(waiter -> waiter.onFailure().accept(result));
        parked.forEach(piece -> piece.onFailure().accept(result));
    }
}

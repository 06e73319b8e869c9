package io.blockcache.backing;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.CompletionBatcher;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.RequestChecks;
import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@code s3://bucket/prefix} volume as a {@link BlockDevice}: fixed-size chunk objects
 * {@code prefix/chunk-%016x} ({@link S3Volume}, docs/FORMAT.md §4.3), a missing object reading as zeros.
 *
 * <p><b>Writes</b> land in in-memory chunk buffers (at most {@link #STAGING_CHUNKS_MAX}) and complete at once:
 * like a disk's write cache they are volatile until a flush. A chunk is PUT whole when writes have filled it, when
 * a write needs its slot, for a FUA write (which completes only after that PUT) and for a flush (which completes
 * after the PUTs of every write completed before it). A chunk written only in part is first completed by a GET of
 * its old object. At most one PUT per chunk is in flight, so PUTs of one key never overtake each other; many
 * chunks are PUT at once. A PUT's success is its durability (S3 acknowledges only stored objects).
 *
 * <p><b>Failures.</b> A failed PUT (after the SDK's retries) loses nothing here: the chunk stays staged and dirty
 * and the next PUT of it sends it again. But the flushes and FUA writes waiting for it fail, the next flush fails
 * even if none was waiting, and the writes waiting for a staging slot fail; the engine wraps every backing in
 * {@code StickyFlushDevice}, so no flush succeeds until a restart (docs/WRITEBACK.md "When a device fails").
 * Once the volume's ownership is lost to another cache ({@link #fence}), every PUT and DELETE fails.
 *
 * <p><b>Discard</b> of a whole chunk that is not staged deletes its object; other discards do nothing (the
 * contract lets a discarded range keep its old contents).
 *
 * <p>Threads: blocking SDK calls run on {@link #ioThreads} I/O threads; their results come back to the owning
 * loop through a {@link CompletionBatcher}; all state is the loop's. The I/O queue is bounded by its producers:
 * reads and discards by the engine's requests in flight, PUTs and GETs of old chunks by the staging bound.
 * Submit and close on the loop's thread (checked).
 */
public final class S3Device implements BlockDevice {
    /** Requests (PUT, GET, DELETE) in flight to S3 at most: one thread each, since the SDK client is blocking. */
    public static final int IO_THREADS_DEFAULT = 16;
    /**
     * Chunks staged in memory at most: 16 x 4 MiB = 64 MiB, enough for every I/O thread to PUT one chunk while
     * writes fill others. Counted in the launcher's heap sizing ({@code cli.JvmSizing}).
     */
    public static final int STAGING_CHUNKS_MAX = 16;
    /** The block size offered to the engine: 512, as for files, so sector-aligned requests pass unchanged. */
    static final int LOGICAL_BLOCK_BYTES = SECTOR_BYTES;

    /** A request waiting for write {@code seq} to be durable. */
    record Waiter(long seq, Runnable onDurable, Consumer<IoResult> onFailure) {
    }

    /** A piece of a request waiting for something (a slot, the old chunk, a DELETE): retried, or failed. */
    record Parked(Runnable retry, Consumer<IoResult> onFailure) {
    }

    private final EventLoop loop;
    private final S3Store store;
    private final S3Volume volume;
    private final S3Lease lease;
    private final int ioThreads;
    private final ExecutorService io;
    private final CompletionBatcher completions;
    private final DeviceCounters counters = new DeviceCounters();
    private final AtomicLong putsCompleted = new AtomicLong();
    private final AtomicLong putFailures = new AtomicLong();
    private volatile String fencedReason;

    // Loop-owned state. Sorted maps: their order reaches behaviour (which chunk is PUT first).
    private final TreeMap<Long, S3Chunk> staged = new TreeMap<>();
    /** Chunks whose DELETE is in flight, with what waits for it; bounded by the engine's discards in flight. */
    private final TreeMap<Long, List<Parked>> deleting = new TreeMap<>();
    /** Write pieces waiting for a staging slot; bounded by the engine's writes in flight. */
    private final ArrayDeque<Parked> waitingForRoom = new ArrayDeque<>();
    /** Flushes waiting for PUTs; bounded by the engine's flushes in flight. */
    private final List<Waiter> flushes = new ArrayList<>();
    private long writeSeq;
    private String unreportedFailure;
    private boolean closed;

    S3Device(EventLoop loop, S3Store store, S3Volume volume, S3Lease lease, int ioThreads) {
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("I/O threads must be 1..256: " + ioThreads);
        }
        this.loop = Objects.requireNonNull(loop, "loop");
        this.store = store;
        this.volume = volume;
        this.lease = lease;
        this.ioThreads = ioThreads;
        AtomicInteger threadNumber = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(ioThreads, task -> {
            Thread thread = new Thread(task, "blockcache-s3-io-" + threadNumber.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        this.completions = new CompletionBatcher(loop);
    }

    /** The volume's geometry and identity. */
    public S3Volume volume() {
        return volume;
    }

    /** I/O threads, i.e. S3 requests in flight at most. */
    public int ioThreads() {
        return ioThreads;
    }

    /** Successful chunk PUTs so far; any thread. */
    public long putsCompleted() {
        return putsCompleted.get();
    }

    /** Failed chunk PUTs so far; any thread. */
    public long putFailures() {
        return putFailures.get();
    }

    /** The ownership record this device holds, or null when opened without one (tests). */
    public S3Lease lease() {
        return lease;
    }

    /**
     * Stops all PUTs and DELETEs from now on (ownership went to another cache): any thread.
     *
     * @param reason the one line later failures carry
     */
    public void fence(String reason) {
        fencedReason = reason;
    }

    @Override
    public long sizeBytes() {
        return volume.sizeBytes();
    }

    @Override
    public int logicalBlockBytes() {
        return LOGICAL_BLOCK_BYTES;
    }

    @Override
    public int writeUnitBytes() {
        return volume.chunkBytes();
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    // ---- writes

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        Request request = start(DeviceOp.WRITE, offsetBytes, src.remaining(), callback);
        if (request == null) {
            return;
        }
        forEachPiece(offsetBytes, src.remaining(), request, (index, offsetInChunk, lengthBytes, done) ->
                stage(index, offsetInChunk, lengthBytes, src, src.position() + (int) (index * volume.chunkBytes()
                        + offsetInChunk - offsetBytes), fua, done));
    }

    /** Copies one piece into its chunk's staging buffer, or waits for a slot or a DELETE. */
    private void stage(long index, int offsetInChunk, int lengthBytes, ByteBuffer src, int srcIndex, boolean fua,
                       Piece done) {
        if (closed) {
            done.finish(closedResult());
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
            if (staged.size() >= STAGING_CHUNKS_MAX) {
                waitingForRoom.add(new Parked(() -> stage(index, offsetInChunk, lengthBytes, src, srcIndex, fua,
                        done), done::finish));
                makeRoom();
                return;
            }
            chunk = new S3Chunk(index, volume.chunkLengthBytes(index), LOGICAL_BLOCK_BYTES);
            staged.put(index, chunk);
        }
        src.get(srcIndex, chunk.data, offsetInChunk, lengthBytes);
        long seq = ++writeSeq;
        chunk.recordWrite(offsetInChunk / LOGICAL_BLOCK_BYTES, lengthBytes / LOGICAL_BLOCK_BYTES, seq);
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
        if (!chunk.putWanted || chunk.putInFlight || closed) {
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
        submitIo(() -> {
            checkNotFenced();
            store.put(chunk.objectName, body, chunk.lengthBytes);
        }, result -> putDone(chunk, result));
    }

    private void putDone(S3Chunk chunk, IoResult result) {
        chunk.endPut(result.ok());
        if (closed) {
            return;
        }
        if (result.ok()) {
            putsCompleted.incrementAndGet();
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
            putFailures.incrementAndGet();
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
        }
        while (!waitingForRoom.isEmpty() && staged.size() < STAGING_CHUNKS_MAX) {
            waitingForRoom.poll().retry().run();
        }
        if (!waitingForRoom.isEmpty()) {
            makeRoom();
        }
        checkFlushes();
    }

    // ---- the old chunk

    private void fetchBase(S3Chunk chunk) {
        chunk.baseFetching = true;
        byte[] base = new byte[chunk.lengthBytes];
        submitIo(() -> store.getRange(chunk.objectName, 0, chunk.lengthBytes, base, 0),
                result -> baseDone(chunk, base, result));
    }

    private void baseDone(S3Chunk chunk, byte[] base, IoResult result) {
        chunk.baseFetching = false;
        if (closed || staged.get(chunk.index) != chunk) {
            return; // evicted (it was written whole) or closed: nobody needs these bytes
        }
        if (result.ok()) {
            chunk.fillFromBase(base, LOGICAL_BLOCK_BYTES);
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

    // ---- reads

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        Request request = start(DeviceOp.READ, offsetBytes, dst.remaining(), callback);
        if (request == null) {
            return;
        }
        forEachPiece(offsetBytes, dst.remaining(), request, (index, offsetInChunk, lengthBytes, done) ->
                readPiece(index, offsetInChunk, lengthBytes, dst, dst.position() + (int) (index * volume.chunkBytes()
                        + offsetInChunk - offsetBytes), done));
    }

    private void readPiece(long index, int offsetInChunk, int lengthBytes, ByteBuffer dst, int dstIndex,
                           Piece done) {
        if (closed) {
            done.finish(closedResult());
            return;
        }
        S3Chunk chunk = staged.get(index);
        if (chunk == null) {
            submitIo(() -> {
                byte[] bytes = new byte[lengthBytes];
                store.getRange(S3Volume.chunkName(index), offsetInChunk, lengthBytes, bytes, 0);
                dst.put(dstIndex, bytes, 0, lengthBytes); // the caller leaves dst alone until the callback
            }, done::finish);
            return;
        }
        if (chunk.whole() || chunk.writtenRange(offsetInChunk / LOGICAL_BLOCK_BYTES, lengthBytes
                / LOGICAL_BLOCK_BYTES)) {
            dst.put(dstIndex, chunk.data, offsetInChunk, lengthBytes);
            done.finish(IoResult.OK);
            return;
        }
        chunk.baseWaiters.add(new Parked(() -> readPiece(index, offsetInChunk, lengthBytes, dst, dstIndex, done),
                done::finish));
        if (!chunk.baseFetching) {
            fetchBase(chunk);
        }
    }

    // ---- flush and discard

    @Override
    public void flush(IoCallback callback) {
        Request request = start(DeviceOp.FLUSH, 0, 0, callback);
        if (request == null) {
            return;
        }
        if (unreportedFailure != null) {
            String failure = unreportedFailure;
            unreportedFailure = null;
            request.finish(IoResult.error(IoStatus.IO_ERROR, "an S3 request failed since the last flush: "
                    + failure));
            return;
        }
        long target = writeSeq;
        for (S3Chunk chunk : List.copyOf(staged.values())) {
            if (chunk.firstUnsentSeq != 0 && chunk.firstUnsentSeq <= target) {
                chunk.putWanted = true;
                tryPut(chunk);
            }
        }
        flushes.add(new Waiter(target, () -> request.finish(IoResult.OK), request::finish));
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

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        Request request = start(DeviceOp.DISCARD, offsetBytes, lengthBytes, callback);
        if (request == null) {
            return;
        }
        long chunkBytes = volume.chunkBytes();
        long first = (offsetBytes + chunkBytes - 1) / chunkBytes;
        long end = offsetBytes + lengthBytes;
        List<Long> whole = new ArrayList<>();
        for (long index = first; index < volume.chunkCount()
                && index * chunkBytes + volume.chunkLengthBytes(index) <= end; index++) {
            if (!staged.containsKey(index) && !deleting.containsKey(index)) {
                whole.add(index); // a staged chunk keeps its data: the contract allows old contents
            }
        }
        if (whole.isEmpty()) {
            request.finish(IoResult.OK);
            return;
        }
        request.pieces = whole.size();
        for (long index : whole) {
            deleting.put(index, new ArrayList<>());
            submitIo(() -> {
                checkNotFenced();
                store.delete(S3Volume.chunkName(index));
            }, result -> {
                List<Parked> waiters = deleting.remove(index);
                request.pieceDone(result);
                if (waiters != null) {
                    waiters.forEach(waiter -> waiter.retry().run());
                }
            });
        }
    }

    // ---- requests, pieces and I/O

    /** One piece of a request inside one chunk. */
    @FunctionalInterface
    private interface Piece {
        void finish(IoResult result);
    }

    @FunctionalInterface
    private interface PieceAction {
        void run(long index, int offsetInChunk, int lengthBytes, Piece done);
    }

    /** A request of the engine: completes once every piece has, with the first error if any. */
    private final class Request {
        final DeviceOp op;
        final long lengthBytes;
        final long submittedNs;
        final IoCallback callback;
        int pieces = 1;
        IoResult firstError;

        Request(DeviceOp op, long lengthBytes, IoCallback callback) {
            this.op = op;
            this.lengthBytes = lengthBytes;
            this.submittedNs = loop.nowNs();
            this.callback = callback;
        }

        void finish(IoResult result) {
            pieces = 1;
            pieceDone(result);
        }

        void pieceDone(IoResult result) {
            if (!result.ok() && firstError == null) {
                firstError = result;
            }
            if (--pieces == 0) {
                IoResult outcome = firstError == null ? IoResult.OK : firstError;
                long nowNs = loop.nowNs();
                counters.onComplete(op, outcome.ok() ? lengthBytes : 0, nowNs - submittedNs, outcome, nowNs);
                callback.complete(outcome);
            }
        }
    }

    /** Checks thread, range and alignment; returns null when the request was completed at once. */
    private Request start(DeviceOp op, long offsetBytes, long lengthBytes, IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        if (!loop.inLoop()) {
            throw new IllegalStateException("S3Device " + store.where() + " used off its loop thread");
        }
        IoResult rejected = op == DeviceOp.FLUSH ? null : RequestChecks.check(op, offsetBytes, lengthBytes,
                volume.sizeBytes(), LOGICAL_BLOCK_BYTES, store.where());
        counters.onSubmit(op, rejected == null ? lengthBytes : 0, loop.nowNs());
        Request request = new Request(op, lengthBytes, callback);
        if (rejected != null || closed) {
            request.finish(rejected != null ? rejected : closedResult());
            return null;
        }
        if (lengthBytes == 0 && op != DeviceOp.FLUSH) {
            request.finish(IoResult.OK);
            return null;
        }
        return request;
    }

    /** Splits [offset, offset + length) at chunk boundaries and runs {@code action} on each piece. */
    private void forEachPiece(long offsetBytes, long lengthBytes, Request request, PieceAction action) {
        long chunkBytes = volume.chunkBytes();
        long end = offsetBytes + lengthBytes;
        request.pieces = (int) ((end - 1) / chunkBytes - offsetBytes / chunkBytes + 1);
        for (long at = offsetBytes; at < end; ) {
            long index = at / chunkBytes;
            int offsetInChunk = (int) (at - index * chunkBytes);
            int pieceBytes = (int) Math.min(end - at, chunkBytes - offsetInChunk);
            action.run(index, offsetInChunk, pieceBytes, request::pieceDone);
            at += pieceBytes;
        }
    }

    /** A blocking S3 call for an I/O thread. */
    @FunctionalInterface
    private interface S3Call {
        void run() throws IOException;
    }

    /** Runs {@code call} on an I/O thread; its outcome comes back on the loop as {@code then}. */
    private void submitIo(S3Call call, IoCallback then) {
        try {
            io.execute(() -> {
                IoResult result;
                try {
                    call.run();
                    result = IoResult.OK;
                } catch (IOException | RuntimeException e) {
                    result = IoResult.error(IoStatus.IO_ERROR, String.valueOf(e.getMessage()));
                }
                completions.deliver(outcome -> then.complete(closed ? closedResult() : outcome), result);
            });
        } catch (RejectedExecutionException stopped) {
            then.complete(closedResult());
        }
    }

    private void checkNotFenced() throws IOException {
        String reason = fencedReason;
        if (reason != null) {
            throw new IOException(reason);
        }
    }

    private IoResult closedResult() {
        return IoResult.error(IoStatus.CLOSED, store.where() + " is closed");
    }

    /**
     * Drops what is staged (unflushed writes are lost, as a disk's write cache loses them at a power cut), fails
     * every waiting request with {@link IoStatus#CLOSED}, stops the lease's renewal and the I/O threads.
     */
    @Override
    public void close() {
        if (!loop.inLoop()) {
            throw new IllegalStateException("S3Device " + store.where() + " closed off its loop thread");
        }
        if (closed) {
            return;
        }
        closed = true;
        IoResult result = closedResult();
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
        deleting.clear();
        waiters.forEach(waiter -> waiter.onFailure().accept(result));
        parked.forEach(piece -> piece.onFailure().accept(result));
        if (lease != null) {
            lease.stopRenewing();
        }
        io.shutdown(); // calls in flight finish (or fail) and report CLOSED; nothing new starts
    }
}

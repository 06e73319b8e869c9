package io.blockcache.backing;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.ObjectStoreDevice;
import io.blockcache.device.ObjectStoreStats;
import io.blockcache.device.RequestChecks;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An {@code s3://bucket/prefix} volume as a {@link BlockDevice}: fixed-size chunk objects
 * {@code prefix/chunk-%016x} ({@link S3Volume}, docs/FORMAT.md §4.3), a missing object reading as zeros.
 *
 * <p><b>Writes</b> land in in-memory chunk buffers (at most {@link #STAGING_CHUNKS_MAX}) and complete at once:
 * like a disk's write cache they are volatile until a flush. A chunk is PUT whole when writes have filled it, when
 * a write needs its slot, for a FUA write (which completes only after that PUT) and for a flush (which completes
 * after the PUTs of every write completed before it). A chunk written only in part is first completed by a GET of
 * its old object. At most one PUT per chunk is in flight, so PUTs of one key never overtake each other; many
 * chunks are PUT at once. A PUT's success is its durability (S3 acknowledges only stored objects). The staging and
 * its uploads are {@link S3Staging}; the I/O threads and counters {@link S3Io}; a request's pieces {@link S3Request}.
 *
 * <p><b>Failures.</b> A request that fails in a way that may pass (a dropped or stalled connection, a 5xx, 503
 * SlowDown) is retried with backoff beyond the SDK's own attempts for the retry time ({@link S3Options#retryTimeMs},
 * {@link S3Io}) while its chunk stays staged; only then does it fail. A failed PUT loses nothing here: the chunk
 * stays staged and dirty and the next PUT of it sends it again. But the flushes and FUA writes waiting for it fail,
 * the next flush fails even if none was waiting, and the writes waiting for a staging slot fail; the engine wraps
 * every backing in {@code StickyFlushDevice}, so no flush succeeds until a restart (docs/WRITEBACK.md "When a device
 * fails"). Once the volume's ownership is lost to another cache ({@link #fence}), every PUT and DELETE fails.
 *
 * <p><b>Discard</b> of a whole chunk that is not staged deletes its object; other discards do nothing (the
 * contract lets a discarded range keep its old contents).
 *
 * <p>Threads: blocking SDK calls run on the I/O threads; their results come back to the owning loop; all state is
 * the loop's. Submit and close on the loop's thread (checked); counters and statistics from any thread.
 */
public final class S3Device implements BlockDevice, ObjectStoreDevice {
    /** Requests (PUT, GET, DELETE) in flight to S3 at most: one thread each, since the SDK client is blocking. */
    public static final int IO_THREADS_DEFAULT = 16;
    /**
     * Chunks staged in memory at most: 16 x 4 MiB = 64 MiB, enough for every I/O thread to PUT one chunk while
     * writes fill others. Counted in the launcher's heap sizing ({@code cli.JvmSizing}).
     */
    public static final int STAGING_CHUNKS_MAX = 16;
    /** The block size offered to the engine: 512, as for files, so sector-aligned requests pass unchanged. */
    static final int LOGICAL_BLOCK_BYTES = SECTOR_BYTES;

    private final EventLoop loop;
    private final S3Store store;
    private final S3Volume volume;
    private final S3Lease lease;
    private final int ioThreads;
    private final S3Io io;
    private final S3Staging staging;
    private final DeviceCounters counters = new DeviceCounters();
    /** Set by {@link S3Backing} when its open created the volume object ({@link S3Backing#withdraw}). */
    private boolean volumeCreated;

    S3Device(EventLoop loop, S3Store store, S3Volume volume, S3Lease lease, int ioThreads) {
        this(loop, store, volume, lease, ioThreads, S3Options.RETRY_TIME_MS_DEFAULT);
    }

    /**
     * @param retryTimeMs how long failed requests are retried, in ms ({@link S3Options#retryTimeMs}); the retries'
     *     jitter is seeded from the volume's UUID, so a run is repeatable and two volumes do not retry in step
     */
    S3Device(EventLoop loop, S3Store store, S3Volume volume, S3Lease lease, int ioThreads, long retryTimeMs) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.store = store;
        this.volume = volume;
        this.lease = lease;
        this.ioThreads = ioThreads;
        this.io = new S3Io(loop, store.where(), ioThreads, retryTimeMs * 1_000_000L,
                volume.volumeUuid().getMostSignificantBits() ^ volume.volumeUuid().getLeastSignificantBits());
        this.staging = new S3Staging(store, volume, io, LOGICAL_BLOCK_BYTES);
    }

    /** The store the volume lives in ({@link S3Backing}). */
    S3Store store() {
        return store;
    }

    /** Marks the volume object as created by the open that made this device. */
    void markVolumeCreated() {
        volumeCreated = true;
    }

    /** True if the open that made this device created the volume object. */
    boolean volumeCreated() {
        return volumeCreated;
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
        return io.puts();
    }

    /** Failed chunk PUTs so far; any thread. */
    public long putFailures() {
        return io.putFailures();
    }

    /** Requests run again after a transient failure so far; any thread. */
    public long retries() {
        return io.retries();
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
        io.fence(reason);
    }

    @Override
    public ObjectStoreStats objectStoreStats() {
        String fenced = io.fencedReason();
        String ownership = fenced != null ? fenced : lease == null ? "no owner record"
                : "owned by " + lease.ownerId();
        return new ObjectStoreStats(io.puts(), io.gets(), io.deletes(), io.failures(), io.retries(), io.bytesPut(),
                io.bytesGot(),
                staging.stagedChunks(), STAGING_CHUNKS_MAX, lease == null ? 0 : lease.renewals(),
                lease == null ? 0 : lease.renewalFailures(), fenced != null, ownership);
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

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        S3Request request = start(DeviceOp.WRITE, offsetBytes, src.remaining(), callback);
        if (request == null) {
            return;
        }
        request.forEachPiece(offsetBytes, volume.chunkBytes(), (index, offsetInChunk, lengthBytes, done) ->
                staging.stage(index, offsetInChunk, lengthBytes, src, src.position() + (int) (index
                        * volume.chunkBytes() + offsetInChunk - offsetBytes), fua, done));
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        S3Request request = start(DeviceOp.READ, offsetBytes, dst.remaining(), callback);
        if (request == null) {
            return;
        }
        request.forEachPiece(offsetBytes, volume.chunkBytes(), (index, offsetInChunk, lengthBytes, done) ->
                readPiece(index, offsetInChunk, lengthBytes, dst, dst.position() + (int) (index * volume.chunkBytes()
                        + offsetInChunk - offsetBytes), done));
    }

    /** A staged chunk answers from memory (once its old bytes are in where no write filled it); else a GET. */
    private void readPiece(long index, int offsetInChunk, int lengthBytes, ByteBuffer dst, int dstIndex,
                           S3Request.Piece done) {
        if (io.closed()) {
            done.finish(io.closedResult());
            return;
        }
        S3Chunk chunk = staging.get(index);
        if (chunk == null) {
            io.submit(S3Io.Kind.GET, lengthBytes, () -> {
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
        staging.awaitBase(chunk, new S3Staging.Parked(() -> readPiece(index, offsetInChunk, lengthBytes, dst,
                dstIndex, done), done::finish));
    }

    @Override
    public void flush(IoCallback callback) {
        S3Request request = start(DeviceOp.FLUSH, 0, 0, callback);
        if (request == null) {
            return;
        }
        String failure = staging.takeUnreportedFailure();
        if (failure != null) {
            request.finish(IoResult.error(IoStatus.IO_ERROR, "an S3 request failed since the last flush: "
                    + failure));
            return;
        }
        staging.flush(() -> request.finish(IoResult.OK), request::finish);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        S3Request request = start(DeviceOp.DISCARD, offsetBytes, lengthBytes, callback);
        if (request == null) {
            return;
        }
        long chunkBytes = volume.chunkBytes();
        long first = (offsetBytes + chunkBytes - 1) / chunkBytes;
        long end = offsetBytes + lengthBytes;
        List<Long> whole = new ArrayList<>();
        for (long index = first; index < volume.chunkCount()
                && index * chunkBytes + volume.chunkLengthBytes(index) <= end; index++) {
            if (!staging.busy(index)) {
                whole.add(index); // a staged chunk keeps its data: the contract allows old contents
            }
        }
        if (whole.isEmpty()) {
            request.finish(IoResult.OK);
            return;
        }
        request.expectPieces(whole.size());
        for (long index : whole) {
            staging.deleteStarted(index);
            io.submit(S3Io.Kind.DELETE, 0, () -> store.delete(S3Volume.chunkName(index)), result -> {
                List<S3Staging.Parked> waiters = staging.deleteEnded(index);
                request.pieceDone(result);
                waiters.forEach(waiter -> waiter.retry().run());
            });
        }
    }

    /** Checks thread, range and alignment; returns null when the request was completed at once. */
    private S3Request start(DeviceOp op, long offsetBytes, long lengthBytes, IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        if (!loop.inLoop()) {
            throw new IllegalStateException("S3Device " + store.where() + " used off its loop thread");
        }
        IoResult rejected = op == DeviceOp.FLUSH ? null : RequestChecks.check(op, offsetBytes, lengthBytes,
                volume.sizeBytes(), LOGICAL_BLOCK_BYTES, store.where());
        counters.onSubmit(op, rejected == null ? lengthBytes : 0, loop.nowNs());
        S3Request request = new S3Request(loop, counters, op, lengthBytes, callback);
        if (rejected != null || io.closed()) {
            request.finish(rejected != null ? rejected : io.closedResult());
            return null;
        }
        if (lengthBytes == 0 && op != DeviceOp.FLUSH) {
            request.finish(IoResult.OK);
            return null;
        }
        return request;
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
        if (io.closed()) {
            return;
        }
        io.close();
        staging.failAll(io.closedResult());
        if (lease != null) {
            lease.stopRenewing();
        }
    }
}

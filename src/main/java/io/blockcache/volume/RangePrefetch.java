package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.PartCount;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Timer;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * Carries out one {@link Prefetch}: walks the range a chunk (the caller's buffer) at a time, looks each chunk up, reads
 * its holes from the backing device and writes them into the cache as clean data, then moves on.
 *
 * <p>Unlike a read's fill ({@link ReadFill}) it is asked for: the bypass rules (sequential cutoff, congestion) do not
 * apply, and a fill that finds no room waits for some — {@link #ROOM_RETRY_NS} between tries, since the failed
 * allocation itself asks GC to evict clean buckets and the journal to free emptied ones — instead of being dropped.
 * It waits at most {@link #ROOM_WAIT_NS_MAX} without any room appearing, then stops with {@link
 * Prefetch.State#NO_ROOM}: a cache full of dirty data frees room only as writeback cleans it, and dirty data is never
 * evicted. Every hole piece is registered with {@link InFlightWrites#beginFill} before its backing read, so a write
 * that races it wins (miss collisions). At most one chunk is in flight, and the pieces of a chunk are written one
 * after another: the prefetch is background work that must not crowd out the front end.
 *
 * <p>Allocation: the piece arrays grow once; per piece a slice of the buffer and a cached write from the free list;
 * nothing per sector.
 *
 * <p>Thread rule: the loop thread.
 */
final class RangePrefetch implements Runnable, IoCallback {
    /** Between tries for room: the GC eviction and journal commit a failed allocation starts take about this long. */
    static final long ROOM_RETRY_NS = 10_000_000L;
    /** Longest wait for room with none appearing; then the cache is taken to be full of dirty data. */
    static final long ROOM_WAIT_NS_MAX = 1_000_000_000L;
    private static final long NS_PER_SECOND = 1_000_000_000L;
    private static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    private final VolumeContext context;
    private final Prefetch job;
    private final ByteBuffer buffer;
    private final BooleanSupplier closed;
    private final IoCallback done;
    private final long endSector;
    /** Longest piece: one bucket, so a fill that finds too little room wastes at most the rest of one bucket. */
    private final int pieceSectorsMax;
    private final int chunkSectorsMax;
    private final long startNs;
    private final Runnable stepTask = this::step;
    private final Runnable fillTask = this::fillNext;
    private final IoCallback filled = this::pieceFilled;
    private final PartCount reads = new PartCount();
    private final Holes holes = new Holes();
    private long nextSector;
    private long chunkStart;
    private int chunkSectors;
    private long readBytes;
    /** Loop time the current wait for room began, or -1 when not waiting. */
    private long roomWaitStartNs = -1;
    /** The timer of a wait (rate cap or room) and what it runs, or null when not waiting. */
    private Timer waiting;
    private Runnable afterWait;

    private long[] pieceStart = new long[8];
    private int[] pieceSectors = new int[8];
    private InFlightWrites.Entry[] pieceEntry = new InFlightWrites.Entry[8];
    private int pieceCount;
    private int filling;

    RangePrefetch(VolumeContext context, Prefetch job, ByteBuffer buffer, BooleanSupplier closed, IoCallback done) {
        this.context = context;
        this.job = job;
        this.buffer = buffer;
        this.closed = closed;
        this.done = done;
        this.nextSector = job.offsetBytes() / SECTOR_BYTES;
        this.endSector = (job.offsetBytes() + job.lengthBytes()) / SECTOR_BYTES;
        this.pieceSectorsMax = context.layout.bucketSectors();
        this.chunkSectorsMax = buffer.capacity() / SECTOR_BYTES;
        Checks.require(chunkSectorsMax > 0, "a prefetch buffer of %s bytes holds no sector", buffer.capacity());
        this.startNs = context.loop.nowNs();
        job.onCancel(this::cancelled);
    }

    /** A cancel ends a wait now rather than when its timer would have. */
    private void cancelled() {
        if (waiting != null && waiting.cancel()) {
            waiting = null;
            context.loop.execute(afterWait);
        }
    }

    private void waitThen(long delayNs, Runnable task) {
        afterWait = task;
        waiting = context.loop.schedule(delayNs, () -> {
            waiting = null;
            task.run();
        });
    }

    /** Starts the walk (in a task of its own: never inside the caller's call). */
    void start() {
        context.loop.execute(stepTask);
    }

    /** The next chunk: waits for its turn under the rate cap, then for around-cache writes over it, then looks. */
    private void step() {
        if (job.cancelWanted()) {
            finish(Prefetch.State.CANCELLED, "cancelled", IoResult.OK);
            return;
        }
        if (closed.getAsBoolean()) {
            finishClosed();
            return;
        }
        if (nextSector >= endSector) {
            finish(Prefetch.State.DONE, "", IoResult.OK);
            return;
        }
        long rate = job.rateMaxBytesPerSecond();
        if (rate > 0) {
            long dueNs = startNs + (long) ((double) readBytes * NS_PER_SECOND / rate);
            long nowNs = context.loop.nowNs();
            if (nowNs < dueNs) {
                waitThen(dueNs - nowNs, stepTask);
                return;
            }
        }
        chunkStart = nextSector;
        chunkSectors = (int) Math.min(chunkSectorsMax, endSector - nextSector);
        // The data of a write going around the cache is on neither side yet: look only once it is on the backing.
        context.inFlight.whenNoAroundWriteOverlaps(chunkStart, chunkSectors, this);
    }

    /** Looks the chunk up; registers each hole piece as a fill and reads them all from the backing device. */
    @Override
    public void run() {
        pieceCount = 0;
        context.index.lookup(chunkStart, chunkSectors, holes);
        if (pieceCount == 0) {
            chunkDone();
            return;
        }
        reads.begin();
        for (int i = 0; i < pieceCount; i++) {
            pieceEntry[i] = context.inFlight.beginFill(pieceStart[i], pieceSectors[i]);
            reads.add();
            readBytes += (long) pieceSectors[i] * SECTOR_BYTES;
            context.backingDevice.read(context.backingOffset(pieceStart[i]), slice(i), this);
        }
        complete(IoResult.OK); // the seal
    }

    /** One backing read (or the seal) is in; after the last, the pieces are filled one by one. */
    @Override
    public void complete(IoResult result) {
        IoResult outcome = reads.complete(result, "prefetch read");
        if (outcome == null) {
            return;
        }
        if (!outcome.ok()) {
            endPiecesFrom(0);
            finish(Prefetch.State.FAILED, "backing device read failed: " + outcome.message(), outcome);
            return;
        }
        filling = 0;
        fillNext();
    }

    /** Fills piece {@link #filling}, or waits for room for it, or moves to the next chunk when all are done. */
    private void fillNext() {
        if (closed.getAsBoolean()) { // a shutdown does not wait for a prefetch: stop before the next cache write
            endPiecesFrom(filling);
            finishClosed();
            return;
        }
        while (filling < pieceCount) {
            int i = filling;
            InFlightWrites.Entry entry = pieceEntry[i];
            if (entry.fillRaced()) { // a newer write took the range: its data stays, this fill is dropped
                context.stats.fillsRaced.incrementAndGet();
                pieceEnded(i, Prefetch.Outcome.RACED);
                continue;
            }
            CachedWrite write = CachedWrite.take(context, pieceStart[i], slice(i), false);
            if (!write.reserve()) {
                waitForRoom();
                return;
            }
            roomWaitStartNs = -1;
            write.write(entry, filled);
            return;
        }
        chunkDone();
    }

    private void waitForRoom() {
        long nowNs = context.loop.nowNs();
        if (roomWaitStartNs < 0) {
            roomWaitStartNs = nowNs;
        }
        if (job.cancelWanted() || nowNs - roomWaitStartNs >= ROOM_WAIT_NS_MAX) {
            endPiecesFrom(filling);
            if (job.cancelWanted()) {
                finish(Prefetch.State.CANCELLED, "cancelled", IoResult.OK);
            } else {
                finish(Prefetch.State.NO_ROOM, String.format(java.util.Locale.ROOT,
                        "the cache had no clean room for %d ms (%.1f%% of its buckets hold dirty data, which only"
                        + " writeback frees); filled %d of %d bytes", ROOM_WAIT_NS_MAX / 1_000_000,
                        context.bypass.inUsePercent(), job.filledBytes(), job.lengthBytes()), IoResult.OK);
            }
            return;
        }
        waitThen(ROOM_RETRY_NS, fillTask);
    }

    /** The cache write of piece {@link #filling} is done. */
    private void pieceFilled(IoResult result) {
        int i = filling;
        if (!result.ok()) {
            context.inFlight.end(pieceEntry[i]);
            pieceEntry[i] = null;
            endPiecesFrom(i + 1);
            finish(Prefetch.State.FAILED, "cache device write failed: " + result.message(), result);
            return;
        }
        boolean raced = pieceEntry[i].fillRaced(); // installed only where no newer write claimed it
        if (raced) {
            context.stats.fillsRaced.incrementAndGet();
        } else {
            context.stats.fillSectors.addAndGet(pieceSectors[i]);
        }
        pieceEnded(i, raced ? Prefetch.Outcome.RACED : Prefetch.Outcome.FILLED);
        fillNext();
    }

    private void pieceEnded(int i, Prefetch.Outcome outcome) {
        context.inFlight.end(pieceEntry[i]);
        pieceEntry[i] = null;
        job.walked((long) pieceSectors[i] * SECTOR_BYTES, outcome);
        filling = i + 1;
    }

    /** Ends the fill entries of the pieces from {@code first} on, unfilled (the prefetch stops). */
    private void endPiecesFrom(int first) {
        for (int i = first; i < pieceCount; i++) {
            context.inFlight.end(pieceEntry[i]);
            pieceEntry[i] = null;
        }
        pieceCount = 0;
    }

    private void chunkDone() {
        nextSector = chunkStart + chunkSectors;
        context.loop.execute(stepTask); // a task per chunk: a range of cached chunks must not recurse
    }

    private void finishClosed() {
        finish(Prefetch.State.FAILED, "the volume was closed", IoResult.error(IoStatus.CLOSED, "volume is closed"));
    }

    private void finish(Prefetch.State state, String why, IoResult result) {
        job.end(state, why);
        done.complete(result);
    }

    private ByteBuffer slice(int i) {
        int from = (int) (pieceStart[i] - chunkStart) * SECTOR_BYTES;
        return buffer.slice(from, pieceSectors[i] * SECTOR_BYTES);
    }

    private void addPiece(long start, int sectors) {
        if (pieceCount == pieceStart.length) {
            int capacity = pieceCount * 2;
            pieceStart = Arrays.copyOf(pieceStart, capacity);
            pieceSectors = Arrays.copyOf(pieceSectors, capacity);
            pieceEntry = Arrays.copyOf(pieceEntry, capacity);
        }
        pieceStart[pieceCount] = start;
        pieceSectors[pieceCount] = sectors;
        pieceCount++;
    }

    /** The chunk's lookup: holes become pieces of at most a bucket; cached parts are counted as walked. */
    private final class Holes implements io.blockcache.index.LookupVisitor {
        @Override
        public void hole(long startSector, int lengthSectors) {
            for (int done = 0; done < lengthSectors; done += pieceSectorsMax) {
                addPiece(startSector + done, Math.min(pieceSectorsMax, lengthSectors - done));
            }
        }

        @Override
        public void extent(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                           int crcLengthSectors) {
            job.walked((long) lengthSectors * SECTOR_BYTES, Prefetch.Outcome.CACHED);
        }
    }
}

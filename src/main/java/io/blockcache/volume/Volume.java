package io.blockcache.volume;

import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.Checks;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One cached backing device as clients see it: a {@link BlockDevice} whose reads and writes go through the
 * cache (docs/ARCHITECTURE.md §4), plus write-zeroes.
 *
 * <p>Contract, on top of {@link BlockDevice}'s:
 * <ul>
 *   <li>Offsets and lengths are multiples of 512 bytes (the NBD layer does read-modify-write for others);
 *       a request is at most {@link VolumeConfig#REQUEST_BYTES_MAX} bytes.</li>
 *   <li>A completed write is visible to every later read. A FLUSH makes every write completed before it
 *       durable; a FUA write is durable when it completes (docs/ARCHITECTURE.md §5).</li>
 *   <li>Once a flush has failed, every later FLUSH and FUA write fails with {@link IoStatus#IO_ERROR}: data
 *       that could not be made durable is never reported durable later (docs/ARCHITECTURE.md §5 item 5).</li>
 * </ul>
 *
 * <p>Thread rule: submit on the cache's loop thread; callbacks run there.
 */
public final class Volume implements BlockDevice {
    /** Direct memory a volume's read-miss fill copies use at most, handed out and kept ({@link ReadFill}). */
    public static final long FILL_DIRECT_BYTES_MAX = ReadFill.BUFFER_IN_USE_BYTES_MAX
            + ReadFill.BUFFER_RETAINED_BYTES_MAX;

    private final VolumeContext context;
    private final DeviceCounters counters = new DeviceCounters();
    private final RequestTracker tracker;
    /** Read requests kept for reuse ({@link ReadRequest#take}). */
    private final ArrayDeque<ReadRequest> freeReads = new ArrayDeque<>();
    private final FlushCoordinator flushes;
    private final WriteRouter router;
    private final RangeEraser eraser;
    private boolean closed;
    /** Null unless the volume's dirty data is replicated to other nodes. */
    private ReplicationHooks replication;

    /** A volume without a damage map (unit tests of the request paths). */
    public Volume(EventLoop loop, VolumeConfig config, BlockDevice cacheDevice, BlockDevice backingDevice,
                  CacheLayout layout, CacheSpace space, VolumeIndex index, MetadataJournal journal) {
        this(loop, config, cacheDevice, backingDevice, layout, space, index, journal, null);
    }

    /**
     * A volume whose dirty writes are marked in {@code damage} before they are acknowledged (null: no damage map).
     */
    public Volume(EventLoop loop, VolumeConfig config, BlockDevice cacheDevice, BlockDevice backingDevice,
                  CacheLayout layout, CacheSpace space, VolumeIndex index, MetadataJournal journal,
                  DamageMap damage) {
        this.context = new VolumeContext(loop, config, cacheDevice, backingDevice, layout, space, index, journal,
                damage);
        this.tracker = new RequestTracker(loop, counters);
        this.flushes = new FlushCoordinator(context);
        this.router = new WriteRouter(context, flushes);
        this.eraser = new RangeEraser(context, flushes);
        index.onEpochVoidSettled(failure -> context.loop.execute(() -> orderHoldSettled(failure, true)));
    }

    /**
     * A durable step the volume held its order for ({@link #orderHeld}) is done ({@code failure} null) or failed:
     * requests held for it go now; after a failure they are refused with the reason (the journal's can never be made
     * durable; a damage-map clear is retried, but the requests held meanwhile are refused at each failed attempt, so
     * none waits forever on a device that cannot take writes). Writeback is told.
     */
    private void orderHoldSettled(String failure, boolean lasting) {
        if (failure == null) {
            context.epochGate.retry();
        } else if (lasting) {
            context.epochGate.failAll(failure);
        }
        context.hooks.orderHoldSettled(failure);
    }

    /**
     * True while the volume holds whatever could make its backing device leave the recorded epoch order, until a
     * durable step of a switch is done (the journal's void record, the damage map's cleared flag): writeback starts
     * no pass meanwhile, and the front end sends nothing around the cache.
     */
    public boolean orderHeld() {
        return context.orderHeld();
    }

    /** The volume's number in its cache set. */
    public int volumeId() {
        return context.config.volumeId();
    }

    /** The cache mode now in force. */
    public CacheMode mode() {
        return context.mode;
    }

    /** Switches the cache mode; requests already submitted finish under the old one. */
    public void setMode(CacheMode mode) {
        Checks.onLoop(context.loop, "Volume.setMode");
        context.mode = java.util.Objects.requireNonNull(mode, "mode");
    }

    /** The bypass and throttle settings in force (see {@link BypassSettings}). */
    public BypassSettings bypassSettings() {
        return context.bypass.settings();
    }

    /** Replaces the bypass and throttle settings (live knobs); requests submitted from now on use them. */
    public void setBypassSettings(BypassSettings settings) {
        Checks.onLoop(context.loop, "Volume.setBypassSettings");
        context.bypass.setSettings(settings);
    }

    /** The read admission settings in force (see {@link AdmissionSettings}). */
    public AdmissionSettings admissionSettings() {
        return context.admission.settings();
    }

    /** Replaces the read admission settings (live knobs); reads submitted from now on use them. */
    public void setAdmissionSettings(AdmissionSettings settings) {
        Checks.onLoop(context.loop, "Volume.setAdmissionSettings");
        context.admission.setSettings(settings);
    }

    /** This volume's read admission: its sketch's memory and size (docs/CACHING.md). */
    public ReadAdmission readAdmission() {
        return context.admission;
    }

    /**
     * The share of the cache's data buckets in use (holding dirty data), percent, as the occupancy cutoffs see
     * it (see {@link OccupancyGauge}). Thread rule: the loop thread.
     */
    public double cacheInUsePercent() {
        return context.bypass.inUsePercent();
    }

    /**
     * The cache's data buckets in use (holding dirty data), the count behind {@link #cacheInUsePercent}. Thread
     * rule: the loop thread.
     */
    public int cacheInUseBuckets() {
        return context.bypass.inUseBuckets();
    }

    /**
     * The cache's dirty data over its data capacity, percent, as the write throttle sees it (see
     * {@link OccupancyGauge}). Thread rule: the loop thread.
     */
    public double cacheDirtyDataPercent() {
        return context.bypass.dirtyDataPercent();
    }

    /**
     * The recent average latency of the volume's cache-device reads, as the congestion check sees it
     * (submission to completion on the loop, see {@code CongestionMonitor}), ns; 0 if none is known. Loop thread.
     */
    public long cacheReadLatencyAverageNs() {
        return context.bypass.congestion().readLatencyNs();
    }

    /** The same for cache-device writes. Loop thread. */
    public long cacheWriteLatencyAverageNs() {
        return context.bypass.congestion().writeLatencyNs();
    }

    /** Front-end counters (hits, misses, bypasses, checksum errors). */
    public VolumeStats stats() {
        return context.stats;
    }

    /**
     * Connects the volume's writeback engine. Thread rule: the loop thread, before requests that it must see.
     */
    public void setWritebackHooks(WritebackHooks hooks) {
        context.hooks = java.util.Objects.requireNonNull(hooks, "hooks");
    }

    /**
     * Connects (or, with null, disconnects) a replication layer: from now on every write, write-zeroes, trim and
     * FLUSH is reported to it at submission, and every clean marking after it. Thread rule: the loop thread.
     */
    public void setReplicationHooks(ReplicationHooks hooks) {
        Checks.onLoop(context.loop, "Volume.setReplicationHooks");
        this.replication = hooks;
        context.index.setCleanListener(hooks == null ? null : hooks::cleaned);
    }

    /**
     * Turns epoch ordering on or off for the front end (writeback's knob {@code ordering} calls this): with it, a
     * write over dirty data of an older epoch, and anything going straight to the backing device while an older
     * epoch is dirty, waits ({@link EpochGate}). Turning it off releases what waits.
     */
    public void setEpochOrdering(boolean on) {
        Checks.onLoop(context.loop, "Volume.setEpochOrdering");
        context.epochOrdering = on;
        context.index.trackEpochs(on);
        if (!on && context.damage != null) {
            // The map may say the backing device is consistent: cleared durably before anything breaks the order. A
            // failed attempt refuses what is held (retried meanwhile): a map device whose flushes fail for good (a
            // failed flush sticks until restart) would otherwise hold those requests forever (fuzz seed 83271).
            context.damage.clearConsistent(failure -> context.loop.execute(() -> orderHoldSettled(failure, true)));
        }
        context.epochGate.retry();
    }

    /** Whether the front end keeps epoch order now. */
    public boolean epochOrdering() {
        return context.epochOrdering;
    }

    /** Writeback cleaned data (an older epoch may be done): requests waiting for it are tried again. */
    public void epochsAdvanced() {
        context.epochGate.retry();
    }

    /** Writeback failed: requests waiting for older epochs are refused with {@code reason} (they cannot know when). */
    public void failEpochWaiters(String reason) {
        context.epochGate.failAll(reason);
    }

    /**
     * Writeback will not run again before a restart (its backing file changed under it): requests waiting for older
     * epochs, now and later, are refused with {@code reason} instead of waiting forever.
     */
    public void failEpochWaitersFromNow(String reason) {
        context.epochGate.failAllFromNow(reason);
    }

    /** Front-end requests waiting for older epochs to be written back now. */
    public int epochWaiters() {
        return context.epochGate.size();
    }

    /** Front-end requests that ever had to wait for older epochs (a statistic). */
    public long epochWaitsTotal() {
        return context.epochGate.heldTotal();
    }

    /** The backing device this volume caches (writeback writes to it directly). */
    public BlockDevice backingDevice() {
        return context.backingDevice;
    }

    /** Byte offset on the backing device of volume sector {@code sector}. */
    public long backingOffsetBytes(long sector) {
        return context.backingOffset(sector);
    }

    /** The verified reader of cached pieces that front-end reads use too. */
    public CacheExtentReader extentReader() {
        return context.extentReader;
    }

    /**
     * True if a front-end write, trim or write-zeroes overlapping the range is in flight. Writeback leaves such
     * keys for a later pass: a write going around the cache may be about to replace them on the backing device,
     * and the old data must not land after it.
     */
    public boolean frontEndWriteInFlight(long startSector, long lengthSectors) {
        return context.inFlight.writeInFlight(startSector, lengthSectors);
    }

    /**
     * Takes a place in line for a backing write of {@code [startSector, + lengthSectors)} now, to be filled
     * later: the write will reach the backing device after every overlapping backing write submitted before
     * this call and before every one submitted after it. Writeback reserves at planning time, before its cache
     * reads (see {@link BackingWriteSlot}).
     */
    public BackingWriteSlot reserveBackingWrite(long startSector, int lengthSectors) {
        BackingWriteSlot slot = new BackingWriteSlot(context.backingDevice, context.backingOffset(startSector));
        context.backingGate.run(startSector, lengthSectors, slot::onTurn);
        return slot;
    }

    /**
     * Backing writes of this volume in flight or waiting in its write line: front-end writes around the cache, trims,
     * write-zeroes, writeback runs. Journaled write-back starts a group only when there are none, since a backing
     * write the group's log did not see could be undone by the log's replay (docs/WRITEBACK.md).
     */
    public int backingWritesInFlight() {
        return context.backingGate.size();
    }

    /** The damage map on the backing device (docs/WRITEBACK.md "When a device fails"), or null if none. */
    public DamageMap damageMap() {
        return context.damage;
    }

    /** Asks the damage map for a lazy sweep: writeback has just made data clean and durable. */
    public void requestDamageSweep() {
        if (context.damage != null) {
            context.damage.requestSweep();
        }
    }

    /** The volume's index (read-only use: statistics, block status, writeback scans). */
    public VolumeIndex index() {
        return context.index;
    }

    /**
     * Grows the volume to {@code sizeBytes} (bytes; a multiple of 4096, larger than now): the caller made the backing
     * device large enough and the new size durable in the superblock first. Requests up to the new size are taken from
     * now on; an NBD client learns it when it connects again.
     */
    public void grow(long sizeBytes) {
        Checks.onLoop(context.loop, "Volume.grow");
        VolumeConfig now = context.config;
        Checks.check(sizeBytes > now.sizeBytes() && sizeBytes % 4096 == 0, "grow of volume %s to %s bytes (now %s)",
                now.volumeId(), sizeBytes, now.sizeBytes());
        context.config = new VolumeConfig(now.volumeId(), sizeBytes, now.backingDataOffsetBytes(), now.mode(),
                now.fillOnReadMiss(), now.extentMaxSectors());
        if (damageMap() != null) {
            damageMap().grow(sizeBytes, io.blockcache.format.DamageMapGeometry.of(now.backingDataOffsetBytes(),
                    sizeBytes));
        }
    }

    @Override
    public long sizeBytes() {
        return context.config.sizeBytes();
    }

    @Override
    public int logicalBlockBytes() {
        return SECTOR_BYTES;
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        IoCallback done = track(DeviceOp.READ, dst.remaining(), callback);
        if (refuse(offsetBytes, dst.remaining(), done)) {
            return;
        }
        if (dst.remaining() == 0) {
            deliver(done, IoResult.OK);
            return;
        }
        long startSector = offsetBytes / SECTOR_BYTES;
        long lengthSectors = dst.remaining() / SECTOR_BYTES;
        BypassReason bypass = context.bypass.forRead(startSector, (int) lengthSectors);
        if (context.index.pins().overlaps(startSector, lengthSectors)) {
            bypass = BypassReason.NONE; // a pinned range's misses are always filled, streams too (CACHING "Pinning")
        }
        context.admission.recordRead(startSector, lengthSectors);
        context.inFlight.whenNoAroundWriteOverlaps(startSector, lengthSectors,
                ReadRequest.take(context, freeReads, startSector, dst, bypass == BypassReason.NONE, done));
    }

    /**
     * Prefetches {@code [offsetBytes, + lengthBytes)}: every part of it not in the cache is read from the backing
     * device and written into the cache as clean data, so that later reads of the range hit. The bypass rules do not
     * apply (an explicit prefetch is not a stream to bypass); a fill waits, bounded, for room rather than being
     * dropped; a write that races a fill wins; dirty data is never evicted for it ({@link RangePrefetch}). Chunks of
     * {@code buffer}'s capacity are read one at a time into it (the caller's, charged to its budget, held until
     * {@code done} runs). Only backing reads count against {@code rateMaxBytesPerSecond}.
     *
     * <p>{@code done} gets an error when a device failed, the volume closed or the range is bad, else OK — also when
     * the prefetch ended early ({@link Prefetch.State#NO_ROOM}, {@link Prefetch.State#CANCELLED}, or {@link
     * Prefetch.State#FAILED} because the mode is {@link CacheMode#NONE}): a prefetch is a hint, what was filled stays,
     * and the job says how it ended. Thread rule: the loop thread; {@code done} runs there, never inside this call.
     *
     * @param rateMaxBytesPerSecond cap on bytes read from the backing device per second, 0 for none
     * @param buffer at least one sector; its contents are overwritten
     * @return the prefetch's progress, readable from any thread
     */
    public Prefetch prefetch(long offsetBytes, long lengthBytes, long rateMaxBytesPerSecond, ByteBuffer buffer,
                             IoCallback done) {
        Checks.onLoop(context.loop, "Volume.prefetch");
        Checks.require(rateMaxBytesPerSecond >= 0, "prefetch rate %s bytes/s is negative", rateMaxBytesPerSecond);
        Prefetch job = new Prefetch(offsetBytes, lengthBytes, rateMaxBytesPerSecond);
        IoCallback ended = result -> {
            if (!result.ok() && !job.state().ended()) {
                job.end(Prefetch.State.FAILED, result.message());
            }
            done.complete(result);
        };
        if (refuseRange(offsetBytes, lengthBytes, ended)) {
            return job;
        }
        if (context.mode == CacheMode.NONE) { // a hint with nowhere to go: no error for NBD_CMD_CACHE, a reason here
            job.end(Prefetch.State.FAILED, "the cache is off (mode none): nothing to prefetch into");
            deliver(ended, IoResult.OK);
            return job;
        }
        new RangePrefetch(context, job, buffer, () -> closed, ended).start();
        return job;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        IoCallback done = track(DeviceOp.WRITE, src.remaining(), callback);
        if (refuse(offsetBytes, src.remaining(), done)) {
            return;
        }
        if (src.remaining() == 0) {
            deliver(done, IoResult.OK);
            return;
        }
        if (fua) {
            context.index.epochs().close(); // a FUA write starts a new epoch: it and what follows come after
        }
        if (replication != null) {
            done = replication.writing(offsetBytes / SECTOR_BYTES, src, fua, done);
        }
        router.write(offsetBytes / SECTOR_BYTES, src, fua, done);
    }

    @Override
    public void flush(IoCallback callback) {
        IoCallback done = track(DeviceOp.FLUSH, 0, callback);
        if (closed) {
            deliver(done, closedResult());
            return;
        }
        context.index.epochs().close(); // writes acknowledged before now belong to the closed epoch or older ones
        flushes.flush(replication == null ? done : replication.flushing(done));
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        IoCallback done = track(DeviceOp.DISCARD, lengthBytes, callback);
        if (refuseRange(offsetBytes, lengthBytes, done)) {
            return;
        }
        if (lengthBytes == 0) {
            deliver(done, IoResult.OK);
            return;
        }
        if (replication != null) {
            done = replication.trimming(offsetBytes / SECTOR_BYTES, lengthBytes / SECTOR_BYTES, done);
        }
        eraser.discard(offsetBytes / SECTOR_BYTES, lengthBytes / SECTOR_BYTES, lengthBytes, done);
    }

    /**
     * Makes {@code [offsetBytes, + lengthBytes)} read as zeroes: invalidates cached copies and writes zeroes
     * to the backing device. With {@code fua}, durable when it completes.
     */
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        IoCallback done = track(DeviceOp.WRITE, lengthBytes, callback);
        if (refuseRange(offsetBytes, lengthBytes, done)) {
            return;
        }
        if (lengthBytes == 0) {
            deliver(done, IoResult.OK);
            return;
        }
        if (replication != null) {
            done = replication.zeroing(offsetBytes / SECTOR_BYTES, lengthBytes / SECTOR_BYTES, fua, done);
        }
        eraser.writeZeroes(offsetBytes / SECTOR_BYTES, lengthBytes / SECTOR_BYTES, fua, done);
    }

    /**
     * Whether {@link #close} ran: every request fails from then on. A volume stays attached and closed when its detach
     * failed after closing it, until the next start (docs/OPERATIONS.md "Remove a volume"). Loop thread.
     */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        context.epochGate.failAll("the volume was closed"); // writeback stops too: they would wait forever
    }

    private IoCallback track(DeviceOp op, long bytes, IoCallback callback) {
        Checks.onLoop(context.loop, "Volume"); // every read, write, flush, discard and write-zeroes passes here
        if (op == DeviceOp.WRITE || op == DeviceOp.DISCARD) {
            // Recovered epochs no longer describe what comes: dropped, and voided on record before anything of this
            // request reaches the backing device (the gate holds it meanwhile). A FLUSH changes no data.
            context.index.changingUntracked();
        }
        return tracker.track(op, bytes, callback);
    }

    private boolean refuse(long offsetBytes, int lengthBytes, IoCallback callback) {
        if (lengthBytes > VolumeConfig.REQUEST_BYTES_MAX) {
            deliver(callback, IoResult.error(IoStatus.OUT_OF_RANGE, "request of " + lengthBytes
                    + " bytes exceeds the maximum of " + VolumeConfig.REQUEST_BYTES_MAX));
            return true;
        }
        return refuseRange(offsetBytes, lengthBytes, callback);
    }

    private boolean refuseRange(long offsetBytes, long lengthBytes, IoCallback callback) {
        IoResult error = null;
        if (closed) {
            error = closedResult();
        } else if (offsetBytes < 0 || lengthBytes < 0 || offsetBytes > sizeBytes() - lengthBytes) {
            error = IoResult.error(IoStatus.OUT_OF_RANGE, "range [" + offsetBytes + ", +" + lengthBytes
                    + ") is outside the volume of " + sizeBytes() + " bytes");
        } else if (offsetBytes % SECTOR_BYTES != 0 || lengthBytes % SECTOR_BYTES != 0) {
            error = IoResult.error(IoStatus.MISALIGNED, "offset " + offsetBytes + " and length " + lengthBytes
                    + " must be multiples of " + SECTOR_BYTES);
        }
        if (error != null) {
            deliver(callback, error);
            return true;
        }
        return false;
    }

    private static IoResult closedResult() {
        return IoResult.error(IoStatus.CLOSED, "volume is closed");
    }

    private void deliver(IoCallback callback, IoResult result) {
        // Never call back inside the submitting call (BlockDevice contract).
        context.loop.execute(() -> callback.complete(result));
    }
}

package io.blockcache.volume;

import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;

/**
 * One cached backing device as clients see it: a {@link BlockDevice} whose reads and writes go through the
 * cache (DESIGN.md §6), plus write-zeroes.
 *
 * <p>Contract, on top of {@link BlockDevice}'s:
 * <ul>
 *   <li>Offsets and lengths are multiples of 512 bytes (the NBD layer does read-modify-write for others);
 *       a request is at most {@link VolumeConfig#REQUEST_BYTES_MAX} bytes.</li>
 *   <li>A completed write is visible to every later read. A FLUSH makes every write completed before it
 *       durable; a FUA write is durable when it completes (DESIGN.md §4).</li>
 *   <li>Once a flush has failed, every later FLUSH and FUA write fails with {@link IoStatus#IO_ERROR}: data
 *       that could not be made durable is never reported durable later (DESIGN.md §4.5).</li>
 * </ul>
 *
 * <p>Thread rule: submit on the cache's loop thread; callbacks run there.
 */
public final class Volume implements BlockDevice {
    private final VolumeContext context;
    private final DeviceCounters counters = new DeviceCounters();
    private final ZeroWriter zeroWriter;
    private long backingWritesSinceFlush;
    private int backingFlushesInFlight;
    private boolean flushFailed;
    private boolean closed;

    public Volume(EventLoop loop, VolumeConfig config, BlockDevice cacheDevice, BlockDevice backingDevice,
                  CacheLayout layout, CacheSpace space, VolumeIndex index, MetadataJournal journal) {
        this.context = new VolumeContext(loop, config, cacheDevice, backingDevice, layout, space, index, journal);
        this.zeroWriter = new ZeroWriter(context);
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
        context.mode = java.util.Objects.requireNonNull(mode, "mode");
    }

    /** The bypass and throttle settings in force (see {@link BypassSettings}). */
    public BypassSettings bypassSettings() {
        return context.bypass.settings();
    }

    /** Replaces the bypass and throttle settings (live knobs); requests submitted from now on use them. */
    public void setBypassSettings(BypassSettings settings) {
        context.bypass.setSettings(settings);
    }

    /**
     * The share of the cache's data buckets in use (holding dirty data), percent, as the occupancy cutoffs see
     * it (see {@link OccupancyGauge}). Thread rule: the loop thread.
     */
    public double cacheInUsePercent() {
        return context.bypass.inUsePercent();
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

    /** The volume's index (read-only use: statistics, block status, writeback scans). */
    public VolumeIndex index() {
        return context.index;
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
        BypassReason bypass = context.bypass.forRead(startSector, dst.remaining() / SECTOR_BYTES);
        new ReadRequest(context, startSector, dst, bypass == BypassReason.NONE, done).start();
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
        long startSector = offsetBytes / SECTOR_BYTES;
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        IoCallback durable = fua ? result -> afterFua(result, done) : done;
        CacheMode mode = context.mode;
        BypassReason bypass = mode == CacheMode.WRITEBACK || mode == CacheMode.WRITETHROUGH
                ? context.bypass.forWrite(startSector, lengthSectors, fua, mode == CacheMode.WRITEBACK)
                : BypassReason.NONE;
        long delayNs = throttleDelayNs(startSector, lengthSectors, mode, bypass);
        context.throttle.admit(startSector, lengthSectors, delayNs, () -> {
            context.hooks.frontEndChanging(startSector, lengthSectors);
            route(startSector, src, fua, bypass, durable);
        });
    }

    /**
     * How long the throttle holds a write: only a write-back write that would add new dirty data (cached, over
     * no dirty data) is ever held. Writes over dirty data replace it rather than add to it, and writes going
     * around the cache add none; holding them would slow writers without slowing the growth of dirty data.
     */
    private long throttleDelayNs(long startSector, int lengthSectors, CacheMode mode, BypassReason bypass) {
        if (mode != CacheMode.WRITEBACK || bypass != BypassReason.NONE) {
            return 0;
        }
        double pressure = context.bypass.throttlePressure();
        if (pressure < 0 || context.index.overlapsDirty(startSector, lengthSectors)) {
            return 0;
        }
        long delayNs = context.throttle.delayNs(lengthSectors, pressure,
                context.bypass.backingRateSectorsPerSecond(), context.bypass.settings().throttleDelayNsMax());
        if (delayNs > 0) {
            context.stats.countThrottled(delayNs);
        }
        return delayNs;
    }

    /**
     * Sends a write into the cache or around it. A write that overlaps an extent whose writeback is in flight
     * never goes around the cache (DESIGN.md §1): it is cached as a newer dirty extent whatever the mode, and if
     * the cache has no room it waits until that writeback is done, then is routed again. The bypass policy's
     * {@code bypass} applies only to a write that overlaps no dirty data; it sends a write-back write around the
     * cache and keeps a write-through write from leaving a clean copy.
     */
    private void route(long startSector, ByteBuffer src, boolean fua, BypassReason bypass, IoCallback durable) {
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        CacheMode mode = context.mode;
        boolean underWriteback = context.hooks.writebackInFlight(startSector, lengthSectors);
        boolean overDirty = underWriteback || context.index.overlapsDirty(startSector, lengthSectors);
        // Never bypass over dirty data: the rules below for writes over dirty data stay exactly as they are.
        boolean bypassed = bypass != BypassReason.NONE && !overDirty;
        if (bypassed && (mode == CacheMode.WRITEBACK || mode == CacheMode.WRITETHROUGH)) {
            context.stats.countBypass(bypass, lengthSectors);
        }
        // A write over dirty data goes into the cache whatever the mode (bcache forces such writes into
        // writeback): going around would have to drop the dirty copy before the new data is durable, and an
        // old copy being written back could land on the backing device after it.
        if ((mode == CacheMode.WRITEBACK && !bypassed) || overDirty) {
            CachedWrite cached = new CachedWrite(context, startSector, src, true);
            if (cached.reserve()) {
                if (overDirty && mode != CacheMode.WRITEBACK) {
                    context.stats.writesForcedIntoCache.incrementAndGet();
                }
                InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, false);
                cached.write(entry, result -> {
                    context.inFlight.end(entry);
                    durable.complete(result);
                });
                return;
            }
            // No free bucket: go around the cache. Over dirty data that is the ordered path; it passes the
            // backing write gate after any overlapping writeback write, so old data never lands last.
        }
        if (overDirty) {
            new OrderedAroundWrite(context, startSector, lengthSectors, fua, this::noteBackingWrite)
                    .writeData(src, durable);
            return;
        }
        // Going around invalidates every cached copy the write overlaps (DESIGN.md §1), bypassed or not.
        writeAround(startSector, src, fua, mode == CacheMode.WRITETHROUGH && !bypassed, durable);
    }

    private void noteBackingWrite() {
        backingWritesSinceFlush++;
    }

    /**
     * Writes to the backing device, invalidating cached copies first; for write-through, also installs a
     * clean copy in the cache once both writes are done.
     */
    private void writeAround(long startSector, ByteBuffer src, boolean fua, boolean keepCleanCopy,
                             IoCallback callback) {
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        IoJoin parts = new IoJoin(result -> {
            context.inFlight.end(entry);
            callback.complete(result);
        });
        IoCallback backingPart = parts.add();
        ByteBuffer data = src.duplicate();
        context.backingGate.run(startSector, lengthSectors, release -> context.backingDevice.write(
                context.backingOffset(startSector), data, fua, result -> {
                    release.run();
                    if (result.ok()) {
                        context.stats.writeBypassedSectors.addAndGet(lengthSectors);
                        if (!fua) {
                            backingWritesSinceFlush++;
                        }
                    }
                    backingPart.complete(result.ok() ? IoResult.OK
                            : IoResult.error(IoStatus.IO_ERROR, "backing device write failed: " + result.message()));
                }));
        if (keepCleanCopy) {
            CachedWrite copy = new CachedWrite(context, startSector, src.duplicate(), false);
            if (copy.reserve()) {
                IoCallback copyPart = parts.add();
                // A failed clean copy only costs a future miss; the write itself succeeded on the backing device.
                copy.write(entry, result -> copyPart.complete(IoResult.OK));
            }
        }
        parts.seal();
    }

    private void afterFua(IoResult result, IoCallback callback) {
        if (!result.ok()) {
            callback.complete(result);
            return;
        }
        // The data is durable where it went; the index records that point at it (or that invalidated older
        // copies) must be durable too before the FUA write may complete.
        commitJournal(callback);
    }

    @Override
    public void flush(IoCallback callback) {
        IoCallback done = track(DeviceOp.FLUSH, 0, callback);
        if (closed) {
            deliver(done, closedResult());
            return;
        }
        IoJoin parts = new IoJoin(done);
        commitJournal(parts.add());
        // A backing flush still in flight may be the one that covers writes this FLUSH must cover (it was
        // submitted by an earlier FLUSH, which reset the count): then this FLUSH needs its own backing flush too.
        if (backingWritesSinceFlush > 0 || backingFlushesInFlight > 0 || flushFailed) {
            long covered = backingWritesSinceFlush;
            backingWritesSinceFlush = 0;
            backingFlushesInFlight++;
            IoCallback backingPart = parts.add();
            context.backingDevice.flush(result -> {
                backingFlushesInFlight--;
                if (!result.ok()) {
                    flushFailed = true;
                    backingWritesSinceFlush += covered;
                }
                backingPart.complete(result.ok() ? IoResult.OK
                        : IoResult.error(IoStatus.IO_ERROR, "backing device flush failed: " + result.message()));
            });
        }
        parts.seal();
    }

    private void commitJournal(IoCallback callback) {
        if (flushFailed) {
            deliver(callback, IoResult.error(IoStatus.IO_ERROR,
                    "an earlier flush failed; this volume can no longer promise durability"));
            return;
        }
        context.journal.commit(result -> {
            if (!result.ok()) {
                flushFailed = true;
            }
            callback.complete(result);
        });
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
        long startSector = offsetBytes / SECTOR_BYTES;
        long lengthSectors = lengthBytes / SECTOR_BYTES;
        // Queued only behind an overlapping write the throttle holds, so requests keep their submission order;
        // not held for writeback in flight: the discard passes the backing write gate after it.
        context.throttle.admit(startSector, lengthSectors, 0,
                () -> discardNow(startSector, lengthSectors, lengthBytes, done));
    }

    private void discardNow(long startSector, long lengthSectors, long lengthBytes, IoCallback done) {
        context.hooks.frontEndChanging(startSector, lengthSectors);
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        context.backingGate.run(startSector, lengthSectors, release -> context.backingDevice.discard(
                context.backingOffset(startSector), lengthBytes, result -> {
                    release.run();
                    context.inFlight.end(entry);
                    done.complete(result.ok() ? IoResult.OK
                            : IoResult.error(IoStatus.IO_ERROR, "backing device discard failed: " + result.message()));
                }));
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
        long startSector = offsetBytes / SECTOR_BYTES;
        long lengthSectors = lengthBytes / SECTOR_BYTES;
        // Like a discard: queued only behind an overlapping held write, and not held for writeback, since the
        // zeroes pass the backing write gate after any overlapping writeback write and so land last.
        context.throttle.admit(startSector, lengthSectors, 0, () -> writeZeroesNow(startSector, lengthSectors, fua, done));
    }

    private void writeZeroesNow(long startSector, long lengthSectors, boolean fua, IoCallback done) {
        context.hooks.frontEndChanging(startSector, lengthSectors);
        if (context.index.overlapsDirty(startSector, lengthSectors)) {
            // Zeroes are written to the backing device and made durable before the dirty copies go.
            new OrderedAroundWrite(context, startSector, lengthSectors, fua, this::noteBackingWrite)
                    .writeZeroes(zeroWriter, fua ? result -> afterFua(result, done) : done);
            return;
        }
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        context.backingGate.run(startSector, lengthSectors, release -> zeroWriter.write(startSector, lengthSectors, fua,
                result -> {
                    release.run();
                    context.inFlight.end(entry);
                    if (result.ok() && !fua) {
                        backingWritesSinceFlush++;
                    }
                    if (fua) {
                        afterFua(result, done);
                    } else {
                        done.complete(result);
                    }
                }));
    }

    @Override
    public void close() {
        closed = true;
    }

    private IoCallback track(DeviceOp op, long bytes, IoCallback callback) {
        long submittedNs = context.loop.nowNs();
        counters.onSubmit(op, bytes, submittedNs);
        return result -> {
            long nowNs = context.loop.nowNs();
            counters.onComplete(op, bytes, nowNs - submittedNs, result, nowNs);
            callback.complete(result);
        };
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

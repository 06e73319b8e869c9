package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.loop.Checks;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One volume's damage map (docs/FORMAT.md §4.1, docs/WRITEBACK.md "When a device fails"): a bit per region of the
 * volume, kept on the backing device itself (in the reserved area after its header), so that after the cache
 * device is lost {@code blockcache check --damage} can list which ranges of the backing device are stale.
 *
 * <p>The promise, as md's write-intent bitmap makes it for a RAID resync (Linux drivers/md/md-bitmap.c): at every
 * instant the durable map covers every region where the backing device may hold older data than the volume has
 * acknowledged. Kept by two rules:
 * <ul>
 *   <li><b>Mark before the ack.</b> A cached dirty write whose regions are not durably marked waits for the map
 *       write (FUA) that marks them before it is acknowledged ({@link CachedWrite}); the mark runs in parallel with
 *       the cache write, so it costs latency only when the backing write is slower. A write into regions already
 *       marked costs nothing: one map write per newly dirtied region, not per write.</li>
 *   <li><b>Clear lazily, and only what is clean and durable.</b> A sweep ({@link #SWEEP_DELAY_NS} after writeback
 *       last cleaned something, at most {@link #SWEEP_DELAY_MAX_NS} after it first did, and at shutdown) clears a
 *       region only if the index holds no dirty data in it and no front-end write into it is in flight. Dirty
 *       data becomes clean only after the backing device was flushed (writeback's {@code CleanMarker}), and is
 *       dropped without writeback only by writes that flush the backing device first or by trims, so a clean region
 *       is durable on the backing device.</li>
 * </ul>
 * Recovery re-marks every region holding dirty data before the volume serves ({@link #markDirty}), so a map
 * written by an older version, or none, is made right at open.
 *
 * <p>With ordering=epochs the backing device holds a prefix of the writes up to a flush epoch, so nothing on it is
 * stale, only old: the map then says so with {@link DamageMapBlock#FLAG_CONSISTENT_AS_OF_EPOCH} and the epoch, which
 * {@code check --damage} reports as consistent. Set lazily, at a sweep, when the volume says the
 * order holds ({@code VolumeContext.backingConsistentAsOfEpoch}: E = the newest epoch written back and flushed, a lower
 * bound); cleared durably before anything may break the order ({@link #clearConsistent}: the volume holds writeback
 * and writes around the cache until then) and at every open, before the volume serves. The bits are kept as without
 * the flag, so clearing it needs nothing more than the flag's own write.
 *
 * <p>Thread rule: the loop thread.
 */
public final class DamageMap {
    /**
     * A sweep runs once writeback has cleaned nothing more for this long: md's bitmap daemon clears bits lazily too
     * (its daemon_sleep, 5 s by default). One second keeps the map close to the dirty set once writeback pauses.
     */
    public static final long SWEEP_DELAY_NS = TimeUnit.SECONDS.toNanos(1);
    /**
     * ... but at the latest this long after the first clean it waits for, so that a map under steady writeback
     * still shrinks. Why not every second: a sweep rewrites every block with a cleared region, a FUA write at the
     * start of the backing device each; during a drain over a whole 4 TB disk (118 blocks) a sweep every second cost
     * 40 % of the drain's speed (BENCHMARKS.md "Damage map"), one every 30 s costs about 1 %.
     */
    public static final long SWEEP_DELAY_MAX_NS = TimeUnit.SECONDS.toNanos(30);
    /** Marked regions a sweep examines per loop task (each costs an index lookup of the region). */
    static final int SWEEP_EXAMINED_PER_STEP = 256;
    /** Regions a sweep scans per loop task, marked or not (4 KiB of bits). */
    static final int SWEEP_SCANNED_PER_STEP = 32_768;
    /**
     * A clear of the consistency flag that failed is tried again after this long (the volume stays held meanwhile):
     * a map on a remote backing that is away comes back; a second a try keeps a dead device from being hammered.
     */
    static final long CLEAR_RETRY_NS = TimeUnit.SECONDS.toNanos(1);
    /** Index nodes visited per loop task of the walk at open (recovery works in bounded slices too). */
    private static final int OPEN_WALK_NODES = 1024;

    private final EventLoop loop;
    private DamageMapGeometry geometry;
    private long volumeSectors;
    private final DamageMapBlockWriter[] blocks;
    private final DamageMapStats stats = new DamageMapStats();
    private VolumeIndex index;
    private InFlightWrites inFlight;
    /** Writes {@link #markDirty} makes first, in order, each with FUA (open only; at most two). */
    private final java.util.List<OpenWrite> writesAtOpen = new java.util.ArrayList<>();

    private record OpenWrite(BlockDevice device, long offsetBytes, byte[] bytes) {
    }
    private Timer sweepTimer;
    private long sweepWantedSinceNs;
    private boolean closed;
    /** What the volume says the backing device is consistent as of now (-1: not known to be), read at sweeps. */
    private java.util.function.LongSupplier consistentEpoch = () -> -1;
    /** The consistent-as-of epoch block writes carry from now on; -1: no flag (so at every open). */
    private long flaggedEpoch = -1;
    /** A clear of the flag was asked for and is not durable yet. */
    private boolean clearing;

    /**
     * The volume grew to {@code volumeSizeBytes}, whose geometry keeps the region size and block count (the caller
     * checked): the new regions start clear, as the new backing bytes hold nothing the cache acknowledged.
     */
    public void grow(long volumeSizeBytes, DamageMapGeometry grown) {
        Checks.check(grown.regionBytes() == geometry.regionBytes() && grown.blockCount() == geometry.blockCount(),
                "damage map grown from %s to %s bytes a region, %s to %s blocks", geometry.regionBytes(),
                grown.regionBytes(), geometry.blockCount(), grown.blockCount());
        geometry = grown;
        volumeSectors = volumeSizeBytes / BlockDevice.SECTOR_BYTES;
    }

    /**
     * A map of a volume of {@code volumeSizeBytes} on {@code backing}, starting from {@code area}: the bytes the
     * device holds from {@link DamageMapGeometry#FIRST_BLOCK_OFFSET_BYTES}, {@link DamageMapGeometry#areaBytes()}
     * long (what {@code CacheSet.open} read).
     */
    public DamageMap(EventLoop loop, BlockDevice backing, UUID backingUuid, DamageMapGeometry geometry,
                     long volumeSizeBytes, byte[] area) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.geometry = Objects.requireNonNull(geometry, "geometry");
        this.volumeSectors = volumeSizeBytes / BlockDevice.SECTOR_BYTES;
        this.blocks = new DamageMapBlockWriter[geometry.blockCount()];
        for (int b = 0; b < blocks.length; b++) {
            blocks[b] = new DamageMapBlockWriter(backing, backingUuid, geometry, b,
                    DamageMapBlock.choose(area, backingUuid, geometry, b), stats, () -> flaggedEpoch);
        }
    }

    /**
     * Connects the volume's index and in-flight writes, and what the volume says its backing device is consistent as
     * of (-1: not known to be; the volume, once).
     */
    void attach(VolumeIndex volumeIndex, InFlightWrites writes, java.util.function.LongSupplier consistentAsOfEpoch) {
        this.index = volumeIndex;
        this.inFlight = writes;
        this.consistentEpoch = consistentAsOfEpoch;
    }

    /**
     * Clears the consistency flag durably, before the volume lets anything break the order it vouched for (ordering
     * switched off). Returns false if no block can hold the flag now (nothing to wait for); else {@code settled} hears
     * {@code null} once no block on the device says consistent, and a reason after each failed attempt (retried every
     * {@link #CLEAR_RETRY_NS}, and the volume stays held meanwhile).
     */
    boolean clearConsistent(java.util.function.Consumer<String> settled) {
        flaggedEpoch = -1;
        boolean flagged = false;
        for (DamageMapBlockWriter block : blocks) {
            flagged |= block.mayBeFlagged();
        }
        if (!flagged || clearing) {
            return flagged; // a clear in progress carries on, and its end is heard as before
        }
        clearing = true;
        clearNow(settled);
        return true;
    }

    private void clearNow(java.util.function.Consumer<String> settled) {
        syncAll(result -> {
            if (result.ok()) {
                clearing = false;
                settled.accept(null);
                return;
            }
            settled.accept("the damage map could not be cleared of its consistency flag (retried): "
                    + result.message());
            loop.schedule(CLEAR_RETRY_NS, () -> {
                if (!closed) {
                    clearNow(settled); // after a shutdown the next open clears it
                }
            });
        });
    }

    /** True while a clear of the consistency flag is not durable: the volume holds what could break the order. */
    boolean clearingConsistent() {
        return clearing;
    }

    /** The consistent-as-of epoch the map's writes carry now, or -1 (statistics, tests). */
    public long flaggedEpoch() {
        return flaggedEpoch;
    }

    /** The map's geometry. */
    public DamageMapGeometry geometry() {
        return geometry;
    }

    /** Its counters. */
    public DamageMapStats stats() {
        return stats;
    }

    /**
     * True if every region of {@code [startSector, + lengthSectors)} is durably marked and stays so: a write there
     * needs no map write.
     */
    boolean covers(long startSector, long lengthSectors) {
        long first = startSector / geometry.regionSectors();
        long last = (startSector + lengthSectors - 1) / geometry.regionSectors();
        for (long region = first; region <= last; region++) {
            DamageMapBlockWriter block = blocks[(int) (region / DamageMapBlock.REGIONS_PER_BLOCK)];
            int bit = (int) (region % DamageMapBlock.REGIONS_PER_BLOCK);
            if (!block.wanted(bit) || !block.covers(bit, bit + 1)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Durably marks every region of {@code [startSector, + lengthSectors)}; {@code done} when the marks are on the
     * device, or with the error of the map write that failed. Call only when {@link #covers} is false.
     */
    void mark(long startSector, long lengthSectors, IoCallback done) {
        long first = startSector / geometry.regionSectors();
        long last = (startSector + lengthSectors - 1) / geometry.regionSectors();
        IoJoin join = new IoJoin(done);
        long region = first;
        while (region <= last) {
            int b = (int) (region / DamageMapBlock.REGIONS_PER_BLOCK);
            int from = (int) (region % DamageMapBlock.REGIONS_PER_BLOCK);
            int to = (int) Math.min(DamageMapBlock.REGIONS_PER_BLOCK, from + (last - region) + 1);
            for (int bit = from; bit < to; bit++) {
                if (!blocks[b].wanted(bit)) {
                    stats.regionsMarked.incrementAndGet();
                }
            }
            blocks[b].mark(from, to, join.add());
            region += to - from;
        }
        join.seal();
    }

    /**
     * Before {@link #markDirty} walks the index: writes {@code bytes} at {@code offsetBytes} of {@code device} with
     * FUA (a map file's header copy, or the zeroing of a map left on the backing device; engine.DamageMapSource).
     */
    public void writeAtOpen(BlockDevice device, long offsetBytes, byte[] bytes) {
        writesAtOpen.add(new OpenWrite(device, offsetBytes, bytes));
    }

    /**
     * At open, before the volume serves: makes the writes of {@link #writeAtOpen}, then marks every region that holds
     * dirty data in the recovered index and writes every block that changed or has no valid copy on the device;
     * {@code done} when all of it is durable, or with the first failure.
     */
    public void markDirty(IoCallback done) {
        if (writesAtOpen.isEmpty()) {
            markDirtyFrom(0, done);
            return;
        }
        OpenWrite write = writesAtOpen.remove(0);
        write.device().write(write.offsetBytes(), java.nio.ByteBuffer.wrap(write.bytes()), true, result -> {
            if (!result.ok()) {
                done.complete(result);
                return;
            }
            markDirty(done);
        });
    }

    /** One bounded step of the walk ({@link #OPEN_WALK_NODES} index nodes), then the next in a task of its own. */
    private void markDirtyFrom(long fromCursor, IoCallback done) {
        long cursor = index.extents().forEachInNodes(fromCursor, OPEN_WALK_NODES, (start, length, location, crc,
                crcOffset, crcLength) -> {
            if (ExtentLocation.dirty(location)) {
                want(start, length);
            }
        });
        if (cursor == ExtentIndex.CURSOR_END) {
            syncAll(done);
            return;
        }
        loop.execute(() -> markDirtyFrom(cursor, done));
    }

    private void want(long startSector, long lengthSectors) {
        long first = startSector / geometry.regionSectors();
        long last = (startSector + lengthSectors - 1) / geometry.regionSectors();
        for (long region = first; region <= last; region++) {
            int b = (int) (region / DamageMapBlock.REGIONS_PER_BLOCK);
            int bit = (int) (region % DamageMapBlock.REGIONS_PER_BLOCK);
            if (!blocks[b].wanted(bit)) {
                blocks[b].mark(bit, bit + 1, result -> { }); // syncAll below waits for the write
            }
        }
    }

    /**
     * Writeback cleaned data: a sweep runs {@link #SWEEP_DELAY_NS} after the last such call, but no later than
     * {@link #SWEEP_DELAY_MAX_NS} after the first one it waits for.
     */
    public void requestSweep() {
        if (closed) {
            return;
        }
        long nowNs = loop.nowNs();
        if (sweepTimer == null) {
            sweepWantedSinceNs = nowNs;
        } else if (nowNs - sweepWantedSinceNs + SWEEP_DELAY_NS > SWEEP_DELAY_MAX_NS || !sweepTimer.cancel()) {
            return; // due soon enough, at the latest at the maximum delay
        }
        long delayNs = Math.min(SWEEP_DELAY_NS, Math.max(0, sweepWantedSinceNs + SWEEP_DELAY_MAX_NS - nowNs));
        sweepTimer = loop.schedule(delayNs, () -> {
            sweepTimer = null;
            sweep(result -> { }); // a failed clear leaves the region marked: safe, retried by the next sweep
        });
    }

    /**
     * Clears every marked region that holds no dirty data and no front-end write in flight, in slices of
     * {@link #SWEEP_EXAMINED_PER_STEP} regions per loop task, then writes the blocks that changed; {@code done} when
     * they are durable (an error leaves regions marked, which is safe).
     */
    public void sweep(IoCallback done) {
        stats.sweeps.incrementAndGet();
        if (!clearing) {
            flaggedEpoch = consistentEpoch.getAsLong(); // lazily: at most one sweep late, and a lower bound
        }
        sweepFrom(0, done);
    }

    private void sweepFrom(long fromRegion, IoCallback done) {
        if (closed) {
            loop.execute(() -> done.complete(IoResult.OK));
            return;
        }
        long region = fromRegion;
        int examined = 0;
        long scanEnd = Math.min(geometry.regionCount(), fromRegion + SWEEP_SCANNED_PER_STEP);
        while (region < scanEnd && examined < SWEEP_EXAMINED_PER_STEP) {
            DamageMapBlockWriter block = blocks[(int) (region / DamageMapBlock.REGIONS_PER_BLOCK)];
            int bit = (int) (region % DamageMapBlock.REGIONS_PER_BLOCK);
            if (block.wanted(bit)) {
                examined++;
                long start = region * geometry.regionSectors();
                long length = Math.min(geometry.regionSectors(), volumeSectors - start);
                if (!inFlight.writeInFlight(start, length) && !index.overlapsDirty(start, length)) {
                    block.clear(bit);
                    stats.regionsCleared.incrementAndGet();
                }
            }
            region++;
        }
        if (region >= geometry.regionCount()) {
            syncAll(done);
            return;
        }
        long next = region;
        loop.execute(() -> sweepFrom(next, done));
    }

    private void syncAll(IoCallback done) {
        IoJoin join = new IoJoin(done);
        for (DamageMapBlockWriter block : blocks) {
            block.sync(loop, join.add());
        }
        join.seal();
    }

    /** Stops sweeping (shutdown); marks still in flight complete. */
    public void close() {
        closed = true;
        if (sweepTimer != null) {
            sweepTimer.cancel();
            sweepTimer = null;
        }
    }
}

package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.engine.DamageInspector;
import io.blockcache.engine.DamageReport;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.format.DecodeResult;
import io.blockcache.sim.PrefixCheck;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.SectorPattern;
import io.blockcache.sim.SimDevice;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * Oracle (g), the damage map (docs/TESTING.md): throw the cache device away and read the backing device alone, as
 * {@code blockcache check --damage} would. Every sector outside the map's stale ranges must hold what the volume
 * promised:
 * <ul>
 *   <li>{@link #checkLive} at random points of a running workload (the cache dies, the backing device keeps its
 *       power): the newest acknowledged value, or one submitted since (a write in flight);</li>
 *   <li>{@link #checkCrashImage} at each power cut (cache and power lost together): the newest durable value, or
 *       one submitted since, exactly the promise recovery keeps with the cache ({@link
 *       ReferenceModel#checkDurable}).</li>
 * </ul>
 * A map flagged "consistent as of epoch E" (ordering=epochs) lists nothing stale: it vouches that
 * the backing device alone is the volume at some FLUSH boundary plus part of the epoch after it, so it is judged by
 * the prefix check instead ({@link PrefixCheck}; at a power cut against the history a crash leaves, {@link
 * ReferenceModel#copyAfterCrash}).
 * The map itself must be readable: its blocks are written so that a torn write leaves the previous version. It is
 * read where it lives: on the backing device, or in its map file ({@code damage-map=file}), a device of its own that
 * holds a copy of the header. Reads the devices' contents directly ({@link SimDevice#peek}): no loop event, so the
 * run's timing is not changed. Thread rule: the scenario's thread.
 */
final class DamageOracle {
    private DamageOracle() {
    }

    /**
     * Checks against what a read would return now; null when it holds, else what broke. {@code map} is where the map
     * lives (the backing device itself, or its map file).
     */
    static String checkLive(SimDevice backing, SimDevice map, ReferenceModel model, long rangeBytes) {
        return check(backing, map, model, rangeBytes, false);
    }

    /** Checks the crash image (power off) against the durable floors; null when it holds, else what broke. */
    static String checkCrashImage(SimDevice backing, SimDevice map, ReferenceModel model, long rangeBytes) {
        return check(backing, map, model, rangeBytes, true);
    }

    /** Sectors of the first {@code rangeBytes} of the volume that the map on {@code mapDevice} lists as stale now. */
    static long staleSectors(SimDevice mapDevice, long rangeBytes) {
        DamageReport.Volume map = readMap(mapDevice);
        long total = 0;
        for (DamageReport.SectorRange range : map.staleRanges()) {
            long end = Math.min(rangeBytes / BlockDevice.SECTOR_BYTES, range.startSector() + range.lengthSectors());
            total += Math.max(0, end - range.startSector());
        }
        return total;
    }

    /** True if the map on {@code mapDevice} says its backing device is consistent as of an epoch. */
    static boolean consistent(SimDevice mapDevice) {
        return readMap(mapDevice).consistentEpoch() >= 0;
    }

    private static DamageReport.Volume readMap(SimDevice backing) {
        ByteBuffer headerBytes = ByteBuffer.allocate(BackingHeader.BYTES);
        backing.peek(0, headerBytes);
        BackingHeader header = BackingHeader.decode(headerBytes.array(), 0).value();
        DamageMapGeometry geometry = DamageMapGeometry.of(header.dataOffsetBytes(), header.volumeSizeBytes());
        ByteBuffer area = ByteBuffer.allocate(geometry.areaBytes());
        backing.peek(DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES, area);
        return DamageInspector.decode("volume", header, geometry, area.array());
    }

    /**
     * For a backing device no durable superblock names (a power cut between a live remove and the add that brings it
     * back, or inside either): it was drained before its removal, so it holds every byte the volume promised, and its
     * header and map promise nothing (an add rewrites both; a reader of a torn map lists everything as stale, which is
     * only cautious). Checks the whole range against {@code model}'s crash image. A header torn by such an add does
     * not say where the data starts, so it is read at {@code dataOffsetBytes}, the layout the volume was made with
     * (with a backing log, the default 1 MiB offset is inside the log: fuzz seed 351 of 2026-12-07); a drained
     * volume's log holds no committed group.
     */
    static String checkDetached(SimDevice backing, long dataOffsetBytes, ReferenceModel model, long rangeBytes) {
        return checkOutside(new BitSet(), ReplayedBacking.contents(backing, dataOffsetBytes, rangeBytes), model,
                rangeBytes, true, "the volume was removed (drained), yet");
    }

    private static String check(SimDevice backing, SimDevice mapDevice, ReferenceModel model, long rangeBytes,
                                boolean crashImage) {
        ByteBuffer headerBytes = ByteBuffer.allocate(BackingHeader.BYTES);
        backing.peek(0, headerBytes);
        DecodeResult<BackingHeader> header = BackingHeader.decode(headerBytes.array(), 0);
        if (!header.isOk()) {
            return "the backing header is unreadable: " + header.error().message();
        }
        ByteBuffer mapHeaderBytes = ByteBuffer.allocate(BackingHeader.BYTES);
        mapDevice.peek(0, mapHeaderBytes);
        if (!header.value().equals(BackingHeader.decode(mapHeaderBytes.array(), 0).value())) {
            return "the damage map's copy of the backing header is not the backing device's";
        }
        DamageReport.Volume map = readMap(mapDevice);
        if (!map.problems().isEmpty()) {
            return "the damage map is unreadable: " + map.problems();
        }
        if (map.consistentEpoch() >= 0) {
            ByteBuffer contents = ReplayedBacking.contents(backing, rangeBytes); // journaled: its log replayed
            String broken = PrefixCheck.check(crashImage ? model.copyAfterCrash() : model, contents);
            return broken == null ? null : "the damage map says the backing device is consistent as of flush epoch "
                    + map.consistentEpoch() + ", yet it is the volume at no FLUSH boundary"
                    + (crashImage ? " (crash image)" : "") + ": " + broken;
        }
        int sectors = (int) (rangeBytes / BlockDevice.SECTOR_BYTES);
        BitSet stale = new BitSet(sectors);
        for (DamageReport.SectorRange range : map.staleRanges()) {
            stale.set((int) Math.min(sectors, range.startSector()),
                    (int) Math.min(sectors, range.startSector() + range.lengthSectors()));
        }
        return checkOutside(stale, ReplayedBacking.contents(backing, rangeBytes), model, rangeBytes, crashImage,
                "sector lies outside the damage map " + map.staleRanges() + ", yet");
    }

    /** Checks every sector of {@code data} not in {@code stale} against {@code model}; says where it breaks. */
    private static String checkOutside(BitSet stale, ByteBuffer data, ReferenceModel model, long rangeBytes,
                                       boolean crashImage, String why) {
        int sectors = (int) (rangeBytes / BlockDevice.SECTOR_BYTES);
        int run = stale.nextClearBit(0);
        while (run < sectors) {
            int end = Math.min(sectors, stale.nextSetBit(run) < 0 ? sectors : stale.nextSetBit(run));
            ByteBuffer slice = data.duplicate().position(run * BlockDevice.SECTOR_BYTES)
                    .limit(end * BlockDevice.SECTOR_BYTES).slice();
            ReferenceModel.Mismatch mismatch = crashImage ? model.checkDurable(run, slice)
                    : model.checkRead(run, model.readSubmitted(run, end - run), slice);
            if (mismatch != null) {
                return "sector " + mismatch.sector() + ": " + why + " the backing device "
                        + (crashImage ? "(crash image) " : "") + "holds "
                        + SectorPattern.describe(mismatch.found()) + " where the volume promised one of "
                        + mismatch.expected();
            }
            run = stale.nextClearBit(end);
        }
        return null;
    }
}

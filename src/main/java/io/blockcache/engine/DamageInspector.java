package io.blockcache.engine;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.LogReplay;
import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.format.DecodeResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the damage maps of backing devices without their cache device ({@code blockcache check --damage},
 * docs/FORMAT.md §4.1): each device's header, then the chosen copy of every map block, turned into the stale
 * ranges of its volume. Reads only. A block with no valid copy, or a device without a readable header or map,
 * cannot say what is current, so everything it covers is listed as stale and a problem says why.
 *
 * <p>Thread rule: the devices' loop thread.
 */
public final class DamageInspector {
    private final List<BackingSpec> backings;
    private final List<DamageReport.Volume> volumes = new ArrayList<>();
    private final Consumer<DamageReport> done;

    private DamageInspector(List<BackingSpec> backings, Consumer<DamageReport> done) {
        this.backings = backings;
        this.done = done;
    }

    /** Inspects {@code backings} in order; {@code done} gets the report. */
    public static void inspect(List<BackingSpec> backings, Consumer<DamageReport> done) {
        new DamageInspector(List.copyOf(backings), done).next(0);
    }

    private void next(int index) {
        if (index == backings.size()) {
            done.accept(new DamageReport(volumes));
            return;
        }
        BackingSpec spec = backings.get(index);
        DeviceBytes.read(spec.device(), 0, BackingHeader.BYTES, read -> {
            if (!read.isOk()) {
                volumes.add(unknown(spec.name(), "cannot read the backing header: " + read.error()));
                next(index + 1);
                return;
            }
            DecodeResult<BackingHeader> header = BackingHeader.decode(read.value(), 0);
            if (!header.isOk()) {
                volumes.add(unknown(spec.name(), "no valid backing header (" + header.error().message()
                        + "): not a blockcache backing device, or its header is damaged"));
                next(index + 1);
                return;
            }
            readMap(spec, header.value(), () -> checkLog(spec, header.value(), () -> next(index + 1)));
        });
    }

    private void readMap(BackingSpec spec, BackingHeader header, Runnable then) {
        DamageMapGeometry geometry = DamageMapGeometry.of(header.dataOffsetBytes(), header.volumeSizeBytes());
        long sectors = header.volumeSizeBytes() / BlockDevice.SECTOR_BYTES;
        if (geometry == null) {
            volumes.add(new DamageReport.Volume(spec.name(), header.volumeSizeBytes(), 0, -1,
                    List.of(new DamageReport.SectorRange(0, sectors)), header.volumeSizeBytes(), List.of(
                    "the data offset of " + header.dataOffsetBytes() + " bytes leaves no room for a damage map")));
            then.run();
            return;
        }
        DeviceBytes.read(spec.device(), DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES, geometry.areaBytes(), read -> {
            if (!read.isOk()) {
                volumes.add(new DamageReport.Volume(spec.name(), header.volumeSizeBytes(), geometry.regionBytes(), -1,
                        List.of(new DamageReport.SectorRange(0, sectors)), header.volumeSizeBytes(),
                        List.of("cannot read the damage map: " + read.error())));
            } else {
                volumes.add(decode(spec.name(), header, geometry, read.value()));
            }
            then.run();
        });
    }

    /**
     * A device with a backing log (docs/FORMAT.md §4.4) that holds a committed group is consistent only once the group
     * is replayed: says so among the volume's problems (reads only; a cache set opening the device replays it).
     */
    private void checkLog(BackingSpec spec, BackingHeader header, Runnable then) {
        BackingLogRegion region = BackingLogRegion.of(header);
        if (region == null) {
            then.run();
            return;
        }
        LogReplay.peek(spec.device(), region, peeked -> {
            String problem = peeked.failure() != null ? "cannot read the backing log: " + peeked.failure()
                    : peeked.commit() == null ? null
                    : "the backing log holds committed group " + peeked.commit().sequence() + " (flush epochs "
                            + peeked.commit().firstEpoch() + ".." + peeked.commit().lastEpoch() + ", "
                            + peeked.commit().recordCount() + " records): the device holds the volume as reported"
                            + " only once that group is replayed (blockcache replay-log, or a cache set opening it)";
            if (problem != null) {
                DamageReport.Volume last = volumes.remove(volumes.size() - 1);
                List<String> problems = new ArrayList<>(last.problems());
                problems.add(problem);
                volumes.add(new DamageReport.Volume(last.name(), last.volumeSizeBytes(), last.regionBytes(),
                        last.consistentEpoch(), last.staleRanges(), last.staleBytes(), problems));
            }
            then.run();
        });
    }

    /** Turns the map area into merged stale ranges; pure, for the fuzz oracle too. */
    public static DamageReport.Volume decode(String name, BackingHeader header, DamageMapGeometry geometry,
                                             byte[] area) {
        long sectors = header.volumeSizeBytes() / BlockDevice.SECTOR_BYTES;
        long regionSectors = geometry.regionSectors();
        List<String> problems = new ArrayList<>();
        List<DamageReport.SectorRange> ranges = new ArrayList<>();
        long epoch = -1;
        boolean allConsistent = true;
        long runStart = -1;
        for (int b = 0; b < geometry.blockCount(); b++) {
            DamageMapBlock.Chosen chosen = DamageMapBlock.choose(area, header.backingUuid(), geometry, b);
            boolean[] stale = new boolean[geometry.regionsInBlock(b)];
            if (chosen.block() == null) {
                problems.add(chosen.problem());
                Arrays.fill(stale, true);
                allConsistent = false;
            } else {
                if ((chosen.block().flags() & DamageMapBlock.FLAG_CONSISTENT_AS_OF_EPOCH) != 0) {
                    epoch = epoch < 0 ? chosen.block().epoch() : Math.min(epoch, chosen.block().epoch());
                } else {
                    allConsistent = false;
                }
                // The engine keeps the bits exact with or without the flag, so a map only partly flagged (a write
                // that sets or clears it is under way on another block) is read by its bits, every block's.
                for (int i = 0; i < stale.length; i++) {
                    stale[i] = chosen.block().marked(i);
                }
            }
            for (int i = 0; i < stale.length; i++) {
                long region = (long) b * DamageMapBlock.REGIONS_PER_BLOCK + i;
                if (stale[i] && runStart < 0) {
                    runStart = region;
                } else if (!stale[i] && runStart >= 0) {
                    ranges.add(range(runStart, region, regionSectors, sectors));
                    runStart = -1;
                }
            }
        }
        if (runStart >= 0) {
            ranges.add(range(runStart, geometry.regionCount(), regionSectors, sectors));
        }
        if (allConsistent && epoch >= 0) {
            ranges.clear(); // every block vouches for the whole: nothing stale, only older (docs/FORMAT.md §4.1)
        }
        long staleBytes = 0;
        for (DamageReport.SectorRange range : ranges) {
            staleBytes += range.lengthSectors() * BlockDevice.SECTOR_BYTES;
        }
        return new DamageReport.Volume(name, header.volumeSizeBytes(), geometry.regionBytes(),
                allConsistent ? epoch : -1, ranges, staleBytes, problems);
    }

    private static DamageReport.SectorRange range(long fromRegion, long toRegion, long regionSectors, long sectors) {
        long start = fromRegion * regionSectors;
        long end = Math.min(sectors, toRegion * regionSectors);
        return new DamageReport.SectorRange(start, end - start);
    }

    private static DamageReport.Volume unknown(String name, String problem) {
        return new DamageReport.Volume(name, 0, 0, -1, List.of(), 0, List.of(problem));
    }
}

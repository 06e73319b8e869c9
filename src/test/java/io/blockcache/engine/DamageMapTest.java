package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.volume.DamageMap;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The damage map in the engine (docs/WRITEBACK.md "When a device fails"): marked durably before a dirty write is
 * acknowledged, once per region, cleared only when clean, rebuilt at open.
 */
class DamageMapTest {
    private static final int REGION_BYTES = 1 << 20;
    private final SimCacheSet sim = new SimCacheSet();
    private final HoldingMapWrites backing = new HoldingMapWrites(sim.backing);
    private final List<BackingSpec> specs = List.of(new BackingSpec(SimCacheSet.EXPORT, backing));

    private CacheSet formatAndOpen() {
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, sim.cache, specs, SimCacheSet.OPTIONS,
                new io.blockcache.loop.Prng(3), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        return open();
    }

    private CacheSet open() {
        // The damage map is opt-in (CacheSetOptions.damageMap); this test is about it.
        Outcome<CacheSet> opened = sim.await(done -> CacheSet.open(sim.loop, sim.cache, specs,
                SimCacheSet.OPTIONS.withDamageMap(true), done));
        assertThat(opened.error()).isNull();
        CacheSet set = opened.value();
        set.knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set("false"); // keep the data dirty
        return set;
    }

    /** The stale ranges the backing device's map lists now, read as {@code check --damage} reads them. */
    private List<DamageReport.SectorRange> staleRanges() {
        DamageReport report = sim.await(done -> DamageInspector.inspect(List.of(new BackingSpec("v", sim.backing)),
                done));
        assertThat(report.volumes().get(0).problems()).isEmpty();
        return report.volumes().get(0).staleRanges();
    }

    private static DamageReport.SectorRange regions(long first, long count) {
        return new DamageReport.SectorRange(first * REGION_BYTES / 512, count * REGION_BYTES / 512);
    }

    @Test
    void aDirtyWriteIsAcknowledgedOnlyOnceItsRegionIsDurablyMarked() {
        // Proves "mark before the ack": while the map write is held back, the cached write stays unacknowledged
        // although its cache write is done; it completes once the map write does, and the map then lists it.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        backing.hold = true;
        IoResult[] result = {null};
        volume.write(3L * REGION_BYTES + 4096, ByteBuffer.wrap(SimCacheSet.pattern(1, 8192)), false,
                r -> result[0] = r);
        sim.loop.runUntil(() -> backing.held.size() == 1);
        sim.loop.runFor(200_000_000L); // 200 ms of simulated time: everything else finishes
        assertThat(result[0]).as("acknowledged before the mark was durable").isNull();
        assertThat(staleRanges()).isEmpty();
        backing.releaseAll();
        sim.loop.runUntil(() -> result[0] != null);
        assertThat(result[0]).isEqualTo(IoResult.OK);
        assertThat(staleRanges()).containsExactly(regions(3, 1));
    }

    @Test
    void aRegionIsMarkedOnceNotPerWrite() {
        // Proves the cost is amortised: 64 writes into one region cost one map write; a write spanning two new
        // regions costs one more (both bits in one block write); writes into marked regions cost none.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        DamageMap map = volume.damageMap();
        long before = map.stats().blockWrites.get();
        for (int i = 0; i < 64; i++) {
            sim.writeOk(volume, 5L * REGION_BYTES + i * 4096L, SimCacheSet.pattern(i, 4096));
        }
        assertThat(map.stats().blockWrites.get() - before).isEqualTo(1);
        sim.writeOk(volume, 8L * REGION_BYTES - 4096, SimCacheSet.pattern(99, 8192)); // regions 7 and 8
        assertThat(map.stats().blockWrites.get() - before).isEqualTo(2);
        assertThat(map.stats().writesCovered.get()).isEqualTo(63);
        assertThat(map.stats().regionsMarked.get()).isEqualTo(3);
        assertThat(staleRanges()).containsExactly(regions(5, 1), regions(7, 2));
    }

    @Test
    void aSweepClearsOnlyRegionsThatAreCleanAndDurable() {
        // Proves lazy clearing: a sweep keeps regions holding dirty data, and after a drain (clean, backing
        // flushed) clears them all; the shutdown's sweep leaves an empty map after a drain.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, 0, SimCacheSet.pattern(1, 4096));
        sim.writeOk(volume, 2L * REGION_BYTES, SimCacheSet.pattern(2, 4096));
        assertThat(sim.io(volume.damageMap()::sweep)).isEqualTo(IoResult.OK);
        assertThat(staleRanges()).containsExactly(regions(0, 1), regions(2, 1));
        assertThat(sim.io(cb -> set.drain(SimCacheSet.EXPORT, progress -> { }, cb))).isEqualTo(IoResult.OK);
        sim.writeOk(volume, 2L * REGION_BYTES + 8192, SimCacheSet.pattern(3, 4096)); // dirty again
        assertThat(sim.io(volume.damageMap()::sweep)).isEqualTo(IoResult.OK);
        assertThat(staleRanges()).containsExactly(regions(2, 1));
        assertThat(sim.io(cb -> set.drain(SimCacheSet.EXPORT, progress -> { }, cb))).isEqualTo(IoResult.OK);
        assertThat(sim.io(set::shutdown)).isEqualTo(IoResult.OK);
        assertThat(staleRanges()).isEmpty();
        assertThat(volume.damageMap().stats().regionsCleared.get()).isEqualTo(2);
    }

    @Test
    void writebackCleaningLeadsToASweepASecondLater() {
        // Proves the lazy clear runs by itself: after writeback cleaned a region, the map still lists it until
        // DamageMap.SWEEP_DELAY_NS has passed with nothing more cleaned, and not after.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, REGION_BYTES, SimCacheSet.pattern(1, 4096));
        assertThat(sim.io(cb -> set.drain(SimCacheSet.EXPORT, progress -> { }, cb))).isEqualTo(IoResult.OK);
        assertThat(staleRanges()).containsExactly(regions(1, 1));
        sim.loop.runFor(DamageMap.SWEEP_DELAY_NS + 100_000_000L);
        assertThat(staleRanges()).isEmpty();
        assertThat(volume.damageMap().stats().sweeps.get()).isEqualTo(1);
    }

    @Test
    void openMarksEveryRegionHoldingDirtyDataEvenWhenTheMapWasLost() {
        // Proves recovery makes the map right: with the whole map area zeroed behind the engine's back (a map
        // from before this format, or both copies lost), an open after a crash writes it again from the dirty
        // extents it recovered, before the volume serves.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, 4L * REGION_BYTES, SimCacheSet.pattern(1, 64 << 10));
        sim.writeOk(volume, 9L * REGION_BYTES, SimCacheSet.pattern(2, 4096));
        sim.flushOk(volume);
        sim.crash();
        DamageMapGeometry geometry = DamageMapGeometry.of(BackingHeader.DEFAULT_DATA_OFFSET_BYTES, 16L << 20);
        sim.rawWrite(sim.backing, DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES, new byte[geometry.areaBytes()]);
        DamageReport lost = sim.await(done -> DamageInspector.inspect(List.of(new BackingSpec("v", sim.backing)),
                done));
        assertThat(lost.verdict()).isEqualTo(DamageReport.Verdict.UNKNOWN);
        open();
        assertThat(staleRanges()).containsExactly(regions(4, 1), regions(9, 1));
    }

    @Test
    void aMapFlaggedConsistentInEveryBlockListsNothingAndAPartlyFlaggedOneIsReadByItsBits() {
        // Proves how check --damage reads the consistency flag (FORMAT.md §4.1): with every block flagged, the volume
        // is consistent as of the smallest epoch and nothing is listed; with one block not flagged (a write setting
        // or clearing the flag is under way on the other), every block's bits are listed, the flagged one's too.
        long mib = 1L << 20;
        long volumeBytes = DamageMapBlock.REGIONS_PER_BLOCK * mib + 16 * mib;
        DamageMapGeometry geometry = DamageMapGeometry.of(mib, volumeBytes);
        assertThat(geometry.blockCount()).isEqualTo(2);
        UUID backingUuid = new UUID(7, 8);
        BackingHeader header = new BackingHeader(backingUuid, new UUID(1, 2), mib, volumeBytes);
        long[] first = new long[DamageMapBlock.WORDS];
        first[0] = 1L << 3;
        long[] second = new long[DamageMapBlock.WORDS];
        second[0] = 1L << 5;
        byte[] area = new byte[geometry.areaBytes()];
        int flag = DamageMapBlock.FLAG_CONSISTENT_AS_OF_EPOCH;
        putBlock(area, geometry, new DamageMapBlock(1, backingUuid, mib, 0, 2, flag, 9, first));
        putBlock(area, geometry, new DamageMapBlock(1, backingUuid, mib, 1, 2, flag, 7, second));
        DamageReport.Volume flagged = DamageInspector.decode("v", header, geometry, area);
        assertThat(flagged.consistentEpoch()).isEqualTo(7);
        assertThat(flagged.staleRanges()).isEmpty();

        putBlock(area, geometry, new DamageMapBlock(1, backingUuid, mib, 1, 2, 0, 0, second));
        DamageReport.Volume partly = DamageInspector.decode("v", header, geometry, area);
        long regionSectors = mib / BlockDevice.SECTOR_BYTES;
        assertThat(partly.consistentEpoch()).isEqualTo(-1);
        assertThat(partly.staleRanges()).containsExactly(new DamageReport.SectorRange(3 * regionSectors, regionSectors),
                new DamageReport.SectorRange((DamageMapBlock.REGIONS_PER_BLOCK + 5) * regionSectors, regionSectors));
    }

    private static void putBlock(byte[] area, DamageMapGeometry geometry, DamageMapBlock block) {
        byte[] bytes = block.encode();
        int at = (int) (geometry.copyOffsetBytes(block.blockIndex(), 0) - DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES);
        System.arraycopy(bytes, 0, area, at, bytes.length);
    }

    @Test
    void aTornMapWriteLeavesThePreviousVersion() {
        // Proves the two-copy rule: the copy the next write would go to is garbage (a torn write), and the reader
        // still finds the other copy with every mark made so far.
        CacheSet set = formatAndOpen();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, 6L * REGION_BYTES, SimCacheSet.pattern(1, 4096)); // written to copy B (A held seq 1)
        DamageMapGeometry geometry = volume.damageMap().geometry();
        byte[] torn = SimCacheSet.pattern(7, 4096);
        sim.rawWrite(sim.backing, geometry.copyOffsetBytes(0, 0), torn); // the next write's copy, torn
        assertThat(staleRanges()).containsExactly(regions(6, 1));
    }

    /** Holds back writes to the damage map area while {@link #hold} is set, until released. */
    private static final class HoldingMapWrites extends ForwardingDevice {
        boolean hold;
        final List<Runnable> held = new ArrayList<>();

        HoldingMapWrites(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            if (hold && offsetBytes >= DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES
                    && offsetBytes < BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
                held.add(() -> inner().write(offsetBytes, src, fua, callback));
                return;
            }
            inner().write(offsetBytes, src, fua, callback);
        }

        void releaseAll() {
            hold = false;
            List<Runnable> now = new ArrayList<>(held);
            held.clear();
            now.forEach(Runnable::run);
        }
    }
}

package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the damage map lives (docs/WRITEBACK.md "Where the map lives"): on the backing device, a write into an
 * unmarked region fails while that device is unreachable; in a map file it succeeds, and the file alone tells
 * {@code check --damage} what is stale.
 */
class DamageMapPlacementTest {
    private static final int REGION_BYTES = 1 << 20;
    private final SimCacheSet sim = new SimCacheSet();
    private final Unreachable backing = new Unreachable(sim.backing);
    private final MemoryDevice mapFile = new MemoryDevice(sim.loop, BackingHeader.DEFAULT_DATA_OFFSET_BYTES, 512);

    private Volume formatAndOpen(boolean inFile) {
        List<BackingSpec> specs = List.of(new BackingSpec(SimCacheSet.EXPORT, backing).withMapDevice(
                inFile ? mapFile : null));
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, sim.cache, specs, SimCacheSet.OPTIONS,
                new io.blockcache.loop.Prng(3), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        Outcome<CacheSet> opened = sim.await(done -> CacheSet.open(sim.loop, sim.cache, specs,
                SimCacheSet.OPTIONS.withDamageMap(true), done));
        assertThat(opened.error()).isNull();
        opened.value().knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set("false");
        return opened.value().volume(SimCacheSet.EXPORT);
    }

    private DamageReport.Volume inspect(BlockDevice device) {
        DamageReport report = sim.await(done -> DamageInspector.inspect(List.of(new BackingSpec("v", device)), done));
        return report.volumes().get(0);
    }

    @Test
    void withTheMapInAFileWritesSucceedWhileTheBackingDeviceIsUnreachable() {
        // Proves the file placement keeps the volume writable without the backing device, and that the
        // file alone (a header copy, then the map) lists the newly dirtied region as check --damage reads it.
        Volume volume = formatAndOpen(true);
        backing.away = true;
        sim.writeOk(volume, 3L * REGION_BYTES, SimCacheSet.pattern(1, 4096));
        sim.writeOk(volume, 5L * REGION_BYTES + 8192, SimCacheSet.pattern(2, 4096));
        assertThat(backing.refused).as("nothing was sent to the unreachable backing device").isZero();
        DamageReport.Volume fromFile = inspect(mapFile);
        assertThat(fromFile.problems()).isEmpty();
        assertThat(fromFile.staleRanges()).containsExactly(
                new DamageReport.SectorRange(3L * REGION_BYTES / 512, REGION_BYTES / 512),
                new DamageReport.SectorRange(5L * REGION_BYTES / 512, REGION_BYTES / 512));
        // The map the backing device held since format was zeroed at open: read alone it says it cannot be
        // trusted (everything stale), never that the device is current.
        backing.away = false;
        DamageReport.Volume fromBacking = inspect(sim.backing);
        assertThat(fromBacking.problems()).isNotEmpty();
        assertThat(fromBacking.staleBytes()).isEqualTo(fromBacking.volumeSizeBytes());
    }

    @Test
    void withTheMapOnTheBackingDeviceAWriteIntoANewRegionFailsWhileItIsUnreachable() {
        // Proves the trade-off the file placement removes: the mark cannot be made durable, so the write fails.
        Volume volume = formatAndOpen(false);
        backing.away = true;
        IoResult result = sim.io(cb -> volume.write(3L * REGION_BYTES, ByteBuffer.wrap(SimCacheSet.pattern(1, 4096)),
                false, cb));
        assertThat(result.ok()).isFalse();
        assertThat(backing.refused).isPositive();
    }

    /** A backing device that refuses every request while {@link #away} (a remote server that went away). */
    private static final class Unreachable extends ForwardingDevice {
        boolean away;
        int refused;

        Unreachable(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            if (away) {
                refused++;
                callback.complete(IoResult.error(IoStatus.IO_ERROR, "backing device unreachable"));
                return;
            }
            inner().write(offsetBytes, src, fua, callback);
        }

        @Override
        public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
            if (away) {
                refused++;
                callback.complete(IoResult.error(IoStatus.IO_ERROR, "backing device unreachable"));
                return;
            }
            inner().read(offsetBytes, dst, callback);
        }
    }
}

package io.blockcache.admin;

import io.blockcache.cache.BucketState;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.journal.JournalWriter;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Copies the numbers of a cache set into a {@link StatsSnapshot}. Cost: O(buckets) for the bucket counts
 * plus one latency-histogram copy per volume; fine for an admin poll every second or so.
 *
 * <p>Thread rule: the cache set's loop thread (callers hop there with {@link LoopCall}).
 */
final class StatsCollector {
    private StatsCollector() {
    }

    /** Takes the snapshot; {@code backings} are the devices the set was opened with, in volume order. */
    static StatsSnapshot collect(CacheSet set, BlockDevice cacheDevice, List<BackingSpec> backings) {
        if (!set.loop().inLoop()) {
            throw new IllegalStateException("stats must be collected on the cache set's loop thread");
        }
        List<StatsSnapshot.VolumeSnapshot> volumes = new ArrayList<>();
        List<String> names = set.exportNames();
        for (int i = 0; i < names.size(); i++) {
            volumes.add(volume(names.get(i), set.volumes().get(i)));
        }
        List<StatsSnapshot.DeviceSnapshot> devices = new ArrayList<>();
        for (BackingSpec backing : backings) {
            devices.add(device(backing.name(), backing.device().counters()));
        }
        return new StatsSnapshot(volumes, cache(set, cacheDevice), devices);
    }

    private static StatsSnapshot.VolumeSnapshot volume(String name, Volume volume) {
        VolumeStats stats = volume.stats();
        long sectorBytes = BlockDevice.SECTOR_BYTES;
        return new StatsSnapshot.VolumeSnapshot(name, volume.sizeBytes(),
                volume.mode().name().toLowerCase(Locale.ROOT), stats.readHitSectors(), stats.readMissSectors(),
                stats.writeCachedSectors(), stats.writeBypassedSectors(), stats.fillSectors(), stats.checksumErrors(),
                volume.index().extents().dirtySectors() * sectorBytes,
                volume.index().extents().cachedSectors() * sectorBytes,
                volume.counters().inFlight(), latency(volume.counters()));
    }

    private static StatsSnapshot.LatencySummary latency(DeviceCounters counters) {
        Histogram histogram = counters.latencyNs();
        long count = histogram.getTotalCount();
        if (count == 0) {
            return new StatsSnapshot.LatencySummary(0, 0, 0, 0, 0.0);
        }
        return new StatsSnapshot.LatencySummary(count, histogram.getValueAtPercentile(50.0),
                histogram.getValueAtPercentile(99.0), histogram.getValueAtPercentile(99.9),
                histogram.getMean() * count);
    }

    private static StatsSnapshot.CacheSnapshot cache(CacheSet set, BlockDevice cacheDevice) {
        JournalWriter journal = set.journal();
        return new StatsSnapshot.CacheSnapshot(set.space().bucketSizeBytes(), set.space().bucketCount(),
                set.buckets(BucketState.FREE), set.buckets(BucketState.OPEN), set.buckets(BucketState.SEALED),
                set.buckets(BucketState.REUSE_PENDING), set.buckets(BucketState.JOURNAL),
                set.buckets(BucketState.METADATA), journal.durableSequence(), journal.entriesWritten(),
                journal.bytesWritten(), journal.ringBucketsInUse(), set.checkpointsWritten(),
                device("cache", cacheDevice.counters()));
    }

    private static StatsSnapshot.DeviceSnapshot device(String name, DeviceCounters counters) {
        long errors = 0;
        for (DeviceOp op : DeviceOp.values()) {
            errors += counters.errors(op);
        }
        return new StatsSnapshot.DeviceSnapshot(name, counters.inFlight(), counters.completedSectors(DeviceOp.READ),
                counters.completedSectors(DeviceOp.WRITE), errors);
    }
}

package io.blockcache.admin;

import io.blockcache.cache.BucketState;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.StickyFlushDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.DurationHistogram;
import io.blockcache.device.FileDevice;
import io.blockcache.device.ObjectStoreDevice;
import io.blockcache.device.ObjectStoreStats;
import io.blockcache.device.RemoteDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.gc.BucketCounts;
import io.blockcache.gc.GarbageCollector;
import io.blockcache.gc.GcStats;
import io.blockcache.journal.JournalWriter;
import io.blockcache.volume.DamageMapStats;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeStats;
import io.blockcache.writeback.RateTerms;
import io.blockcache.writeback.Writeback;
import io.blockcache.writeback.WritebackCounters;
import io.blockcache.writeback.WritebackSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Copies the numbers of a cache set into a {@link StatsSnapshot}. Cost: O(buckets) twice for the bucket counts
 * (the cache's view and GC's view) plus one latency-histogram copy per volume; fine for an admin poll every
 * second or so.
 *
 * <p>Thread rule: the cache set's loop thread (callers hop there with {@link io.blockcache.loop.LoopCalls}).
 */
final class StatsCollector {
    private StatsCollector() {
    }

    /**
     * Takes the snapshot; {@code backings} are the devices the set was opened with, in volume order; {@code drains}
     * the admin API's drains.
     */
    static StatsSnapshot collect(CacheSet set, BlockDevice cacheDevice, List<BackingSpec> backings, Drains drains) {
        if (!set.loop().inLoop()) {
            throw new IllegalStateException("stats must be collected on the cache set's loop thread");
        }
        // In the set's volume order, by name: the caller's list may lag a volume added or removed a moment ago.
        List<BackingSpec> ordered = new ArrayList<>();
        for (String name : set.exportNames()) {
            for (BackingSpec backing : backings) {
                if (backing.name().equals(name)) {
                    ordered.add(backing);
                }
            }
        }
        if (ordered.size() != set.exportNames().size()) {
            ordered = set.exportNames().stream().map(name -> new BackingSpec(name,
                    set.volume(name).backingDevice())).toList();
        }
        backings = ordered;
        List<StatsSnapshot.DeviceSnapshot> devices = new ArrayList<>();
        for (BackingSpec backing : backings) {
            BlockDevice device = backing.device();
            devices.add(device(backing.name(), device, remote(device),
                    device instanceof ObjectStoreDevice s3 ? s3.objectStoreStats() : null));
        }
        StatsSnapshot.CacheSnapshot cache = cache(set, cacheDevice);
        List<StatsSnapshot.VolumeSnapshot> volumes = new ArrayList<>();
        List<String> names = set.exportNames();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            WritebackSnapshot writeback = writeback(set.writebacks().get(i), set.volumes().get(i),
                    backings.get(i).device(), drains.snapshot(name));
            volumes.add(volume(name, set.volumes().get(i), writeback,
                    VolumeHealth.of(writeback, devices.get(i), cache.device())));
        }
        return new StatsSnapshot(volumes, cache, devices, gc(set), null);
    }

    private static WritebackSnapshot writeback(Writeback writeback, Volume volume, BlockDevice backing,
                                               DrainSnapshot drain) {
        BlockDevice engineBacking = volume.backingDevice();
        // The engine's view of the backing device makes flush errors sticky; its first failure is why nothing
        // on this volume can be made durable until a restart.
        String backingFailure = engineBacking instanceof StickyFlushDevice sticky ? sticky.firstFailure() : null;
        WritebackSettings settings = writeback.settings();
        WritebackCounters counters = writeback.counters();
        RateTerms terms = writeback.rateTerms();
        WritebackSnapshot.Rate rate = new WritebackSnapshot.Rate(terms.targetSectors(), terms.errorSectors(),
                terms.proportional(), terms.integralScaled(), terms.fragmentBoost(), terms.changeSectorsPerSecond(),
                terms.rateSectorsPerSecond(), terms.integralFrozen());
        return new WritebackSnapshot(settings.running(), lower(settings.policy()), lower(settings.order()),
                writeback.frontEndIdle(), writeback.overloaded(), writeback.dirtyBytes(), counters.sectorsCleaned(),
                counters.backingWriteSectors(), counters.passes(), writeback.keysInFlight(),
                counters.keysInFlightPeak(), counters.backingWritesInFlight(), backing.counters().inFlight(),
                writeback.measuredBackingBytesPerSecond(), rate, counters.readErrors(), counters.checksumErrors(),
                counters.writeErrors(), counters.flushErrors(), writeback.lastError(), backingFailure, drain,
                epochs(settings, volume, writeback), writeback.degraded(), counters.passDurations());
    }

    private static WritebackSnapshot.Epochs epochs(WritebackSettings settings, Volume volume, Writeback writeback) {
        DirtyEpochs epochs = volume.index().epochs();
        long oldest = epochs.oldest();
        return new WritebackSnapshot.Epochs(lower(settings.ordering()), epochs.current(),
                oldest == DirtyEpochs.NONE ? null : oldest, epochs.epochsHeld(), volume.epochWaiters(),
                volume.epochWaitsTotal(), volume.orderHeld(), writeback.backingLogState(), writeback.logGroups());
    }

    private static GcSnapshot gc(CacheSet set) {
        GarbageCollector collector = set.garbageCollector();
        GcStats stats = collector.stats();
        BucketCounts counts = collector.bucketCounts();
        GcSnapshot.Buckets buckets = new GcSnapshot.Buckets(counts.free(), counts.reusePending(), counts.open(),
                counts.clean(), counts.dirty(), counts.emptyWaiting(), counts.metadata(), counts.journal());
        return new GcSnapshot(collector.running(), stats.runs(), stats.durationNsAverage(), stats.durationNsMax(),
                stats.intervalNsAverage(), stats.sinceLastNs(set.loop().nowNs()), buckets, stats.bucketsEvicted(),
                stats.movedBytes(), stats.compactedBuckets(), stats.staleKeysDropped(), stats.moveChecksumFailures(),
                collector.allocationWaits(), stats.sliceDurations());
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private static StatsSnapshot.VolumeSnapshot volume(String name, Volume volume, WritebackSnapshot writeback,
                                                       VolumeHealth health) {
        VolumeStats stats = volume.stats();
        long sectorBytes = BlockDevice.SECTOR_BYTES;
        return new StatsSnapshot.VolumeSnapshot(name, volume.sizeBytes(),
                volume.mode().name().toLowerCase(Locale.ROOT), stats.readHitSectors(), stats.readMissSectors(),
                stats.writeCachedSectors(), stats.writeBypassedSectors(), stats.fillSectors(), stats.checksumErrors(),
                volume.index().extents().dirtySectors() * sectorBytes,
                volume.index().extents().cachedSectors() * sectorBytes,
                volume.counters().inFlight(), latency(volume.counters()), writeback, damageMap(volume),
                new StatsSnapshot.BypassSnapshot(stats.sequentialBypassedSectors(), stats.congestedBypassedSectors(),
                        stats.occupancyBypassedSectors(), stats.noRoomBypassedSectors(), stats.writesThrottled(),
                        stats.throttleDelayNsTotal(), stats.throttleDelayNsMax(), volume.cacheInUsePercent(),
                        volume.cacheDirtyDataPercent(),
                        volume.cacheReadLatencyAverageNs(), volume.cacheWriteLatencyAverageNs()),
                latencyByOp(volume.counters()), health,
                new StatsSnapshot.AdmissionSnapshot(stats.admittedSectors(), stats.rejectedSectors(),
                        stats.promotedSectors(), volume.readAdmission().memoryBytes(),
                        volume.index().pins().sectors() * BlockDevice.SECTOR_BYTES));
    }

    private static List<DurationHistogram.Counts> latencyByOp(DeviceCounters counters) {
        List<DurationHistogram.Counts> byOp = new ArrayList<>(DeviceOp.values().length);
        for (DeviceOp op : DeviceOp.values()) {
            byOp.add(counters.latencyBuckets(op));
        }
        return byOp;
    }

    private static StatsSnapshot.DamageMapSnapshot damageMap(Volume volume) {
        if (volume.damageMap() == null) {
            return null;
        }
        DamageMapStats stats = volume.damageMap().stats();
        return new StatsSnapshot.DamageMapSnapshot(stats.regionsMarked.get(), stats.regionsCleared.get(),
                stats.markWaits.get(), stats.writesCovered.get(), stats.blockWrites.get(),
                stats.blockWriteErrors.get(), stats.sweeps.get(), volume.damageMap().flaggedEpoch());
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
                set.buckets(BucketState.METADATA), set.space().allocator().metadataReserveBuckets(),
                journal.durableSequence(), journal.entriesWritten(),
                journal.bytesWritten(), journal.ringBucketsInUse(), set.checkpointsWritten(), set.coverageRounds(),
                device("cache", cacheDevice, null, null));
    }

    private static StatsSnapshot.DeviceSnapshot device(String name, BlockDevice device,
                                                       StatsSnapshot.RemoteSnapshot remote,
                                                       ObjectStoreStats objectStore) {
        DeviceCounters counters = device.counters();
        long errors = 0;
        for (DeviceOp op : DeviceOp.values()) {
            errors += counters.errors(op);
        }
        return new StatsSnapshot.DeviceSnapshot(name, counters.inFlight(), counters.completedSectors(DeviceOp.READ),
                counters.completedSectors(DeviceOp.WRITE), errors, remote, objectStore,
                device instanceof FileDevice file ? file.changeFound() : null);
    }

    /** The client's state of a remote backing (an NBD export), null for a local device. */
    private static StatsSnapshot.RemoteSnapshot remote(BlockDevice device) {
        if (!(device instanceof RemoteDevice remote)) {
            return null;
        }
        return new StatsSnapshot.RemoteSnapshot(remote.connected(), remote.state(), remote.breaks(),
                remote.reconnects(), remote.replayLogBytes(), remote.requestTimeouts());
    }
}

package io.blockcache.admin;

import io.blockcache.device.ObjectStoreStats;
import io.blockcache.json.JsonWriter;
import java.util.List;

/**
 * Renders a {@link StatsSnapshot} as the JSON document of {@code GET /api/stats}. Names carry their unit
 * last ({@code dirtyBytes}, {@code p99Us}, {@code rateSectorsPerSecond}); sector counts are 512-byte sectors.
 * Each volume holds a {@code writeback} object; the top level a {@code gc} object for the whole cache and, when
 * an NBD server runs beside the API, an {@code nbd} object with its connection, timeout and buffer counters.
 * Each metric's member is written by its {@link MetricDescriptor} (key, unit, form); this class decides the order
 * and writes the members that are no metric (names, states, texts, the drain). The keys are those scripts and
 * {@code blockcache stats} have always read, units included; {@code /metrics} has the same numbers in base units.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class StatsJson {
    private StatsJson() {
    }

    /** The whole document. */
    static String render(StatsSnapshot stats) {
        JsonWriter json = new JsonWriter().beginObject();
        json.name("volumes").beginArray();
        for (StatsSnapshot.VolumeSnapshot volume : stats.volumes()) {
            volume(json, volume);
        }
        json.endArray();
        cache(json.name("cache"), stats.cache());
        json.name("backing").beginArray();
        for (StatsSnapshot.DeviceSnapshot device : stats.backings()) {
            device(json, device, BackingMetrics.DEVICE_ALL);
        }
        json.endArray();
        gc(json.name("gc"), stats.gc());
        if (stats.nbd() != null) {
            nbd(json.name("nbd"), stats.nbd());
        }
        if (!stats.files().isEmpty()) {
            files(json.name("files"), stats.files());
        }
        if (stats.admin() != null) {
            json.name("admin").beginObject().field("tokenRequired", stats.admin().tokenRequired());
            metrics(json, ServerMetrics.ADMIN_ALL, stats.admin());
            json.endObject();
        }
        return json.endObject().toString();
    }

    /** Each local file: size, allocated bytes, its file system's free space, and holes beyond it (-1: unknown). */
    private static void files(JsonWriter json, List<io.blockcache.device.FileSpace> files) {
        json.beginArray();
        for (io.blockcache.device.FileSpace file : files) {
            json.beginObject()
                    .field("file", file.label())
                    .field("path", file.path().toString())
                    .field("sizeBytes", file.sizeBytes())
                    .field("allocatedBytes", file.allocatedBytes())
                    .field("fileSystemFreeBytes", file.usableBytes());
            CacheMetrics.FILE_SPARSE_BEYOND_FREE.writeJson(json, file);
            json.endObject();
        }
        json.endArray();
    }

    private static void nbd(JsonWriter json, NbdSnapshot nbd) {
        json.beginObject();
        metrics(json, ServerMetrics.NBD_ALL, nbd);
        json.endObject();
    }

    private static void volume(JsonWriter json, StatsSnapshot.VolumeSnapshot volume) {
        json.beginObject().field("name", volume.name());
        metrics(json, List.of(VolumeMetrics.SIZE), volume);
        json.field("mode", volume.mode());
        metrics(json, List.of(VolumeMetrics.READ_HIT, VolumeMetrics.READ_MISS, VolumeMetrics.HIT_RATIO,
                VolumeMetrics.WRITE_CACHED, VolumeMetrics.BYPASSED, VolumeMetrics.FILL, VolumeMetrics.CHECKSUM_ERRORS,
                VolumeMetrics.DIRTY, VolumeMetrics.CACHED, VolumeMetrics.REQUESTS_IN_FLIGHT), volume);
        json.name("latency").beginObject().field("requests", volume.latency().count());
        metrics(json, List.of(VolumeMetrics.LATENCY), volume);
        json.name("byOp").beginObject();
        metrics(json, List.of(VolumeMetrics.REQUEST_DURATION), volume);
        json.endObject().endObject();
        json.name("health").beginObject()
                .field("state", volume.health().state().label())
                .field("reason", volume.health().reason() == VolumeHealth.Reason.NONE ? null
                        : volume.health().reason().label())
                .endObject();
        json.name("bypass").beginObject();
        metrics(json, List.of(VolumeMetrics.BYPASSED_SEQUENTIAL, VolumeMetrics.BYPASSED_CONGESTED,
                VolumeMetrics.BYPASSED_OCCUPANCY, VolumeMetrics.BYPASSED_NO_ROOM, VolumeMetrics.THROTTLED_WRITES,
                VolumeMetrics.THROTTLE_DELAY, VolumeMetrics.THROTTLE_DELAY_MAX, VolumeMetrics.IN_USE,
                VolumeMetrics.DIRTY_DATA, VolumeMetrics.CACHE_READ_LATENCY, VolumeMetrics.CACHE_WRITE_LATENCY), volume);
        json.endObject();
        json.name("admission").beginObject();
        metrics(json, List.of(VolumeMetrics.ADMITTED, VolumeMetrics.REJECTED, VolumeMetrics.PROMOTED,
                VolumeMetrics.ADMISSION_MEMORY, VolumeMetrics.PINNED), volume);
        json.endObject();
        writeback(json.name("writeback"), volume.writeback());
        StatsSnapshot.DamageMapSnapshot map = volume.damageMap();
        if (map != null) { // absent when the volume has no damage map
            json.name("damageMap").beginObject();
            metrics(json, List.of(VolumeMetrics.MAP_REGIONS_MARKED, VolumeMetrics.MAP_REGIONS_CLEARED,
                    VolumeMetrics.MAP_MARK_WAITS, VolumeMetrics.MAP_WRITES_COVERED, VolumeMetrics.MAP_BLOCK_WRITES,
                    VolumeMetrics.MAP_BLOCK_WRITE_ERRORS, VolumeMetrics.MAP_SWEEPS), map);
            json.name(VolumeMetrics.MAP_CONSISTENT_EPOCH.series().get(0).jsonKey());
            if (map.consistentAsOfEpoch() < 0) {
                json.value((String) null);
            } else {
                json.value(map.consistentAsOfEpoch());
            }
            json.endObject();
        }
        json.endObject();
    }

    private static void writeback(JsonWriter json, WritebackSnapshot writeback) {
        WritebackSnapshot.Rate rate = writeback.rate();
        DrainSnapshot drain = writeback.drain();
        json.beginObject();
        metrics(json, List.of(WritebackMetrics.RUNNING), writeback);
        json.field("policy", writeback.policy())
                .field("order", writeback.order())
                .field("state", writeback.frontEndIdle() ? "idle" : "busy");
        metrics(json, List.of(WritebackMetrics.OVERLOADED), writeback);
        json.field("dirtyBytes", writeback.dirtyBytes());
        metrics(json, List.of(WritebackMetrics.WRITTEN, WritebackMetrics.BACKING_WRITES, WritebackMetrics.PASSES,
                WritebackMetrics.PASS_DURATION, WritebackMetrics.KEYS_IN_FLIGHT), writeback);
        json.field("keysInFlightPeak", writeback.keysInFlightPeak());
        metrics(json, List.of(WritebackMetrics.BACKING_WRITES_IN_FLIGHT), writeback);
        json.field("backingQueueDepth", writeback.backingQueueDepth());
        // The rate again at the top, where the dashboard and scripts have read it since before the rate object.
        metrics(json, List.of(WritebackMetrics.MEASURED_BANDWIDTH, WritebackMetrics.RATE), writeback);
        json.name("rate").beginObject();
        metrics(json, List.of(WritebackMetrics.RATE_TARGET, WritebackMetrics.RATE_ERROR,
                WritebackMetrics.RATE_PROPORTIONAL, WritebackMetrics.RATE_INTEGRAL, WritebackMetrics.RATE_CHANGE,
                WritebackMetrics.RATE, WritebackMetrics.RATE_FRAGMENT_BOOST), writeback);
        json.field("integralFrozen", rate.integralFrozen()).endObject();
        json.name("errors").beginObject().field("total", writeback.errors());
        metrics(json, List.of(WritebackMetrics.ERRORS), writeback);
        json.field("last", writeback.lastError())
                .field("backingFailure", writeback.backingFailure())
                .endObject()
                .field("degraded", writeback.degraded())
                .name("epochs").beginObject()
                .field("ordering", writeback.epochs().ordering())
                .field("current", writeback.epochs().current())
                .name("oldestDirty");
        Long oldestDirty = writeback.epochs().oldestDirty();
        if (oldestDirty == null) {
            json.value((String) null);
        } else {
            json.value(oldestDirty.longValue());
        }
        metrics(json, List.of(WritebackMetrics.DIRTY_EPOCHS), writeback);
        json.field("requestsWaiting", writeback.epochs().requestsWaiting());
        metrics(json, List.of(WritebackMetrics.EPOCH_WAITS, WritebackMetrics.ORDER_HELD), writeback);
        json.field("backingLog", writeback.epochs().backingLog());
        metrics(json, List.of(WritebackMetrics.LOG_GROUPS), writeback);
        json.endObject().name("drain").beginObject();
        drainFields(json, drain);
        json.endObject().endObject();
    }

    /** Writes each metric's JSON members (its descriptor has the keys and the units) into the open object. */
    @SuppressWarnings("unchecked")
    private static <T> void metrics(JsonWriter json, List<? extends MetricDescriptor<?>> metrics, T part) {
        for (MetricDescriptor<?> metric : metrics) {
            ((MetricDescriptor<T>) metric).writeJson(json, part);
        }
    }

    /**
     * The members of a drain object (in {@code writeback.drain} of the stats, and {@code GET
     * /api/volumes/{name}/drain}); the first seven are the ones from before drain jobs, in their old order.
     */
    static void drainFields(JsonWriter json, DrainSnapshot drain) {
        json.field("id", drain.id())
                .field("state", drain.state())
                .field("dirtyBytesLeft", drain.dirtyBytesLeft())
                .field("writtenBackBytes", drain.writtenBackBytes())
                .field("bytesPerSecond", drain.bytesPerSecond())
                .field("etaMs", drain.etaMs())
                .field("error", drain.error())
                .field("rateMaxBytesPerSecond", drain.rateMaxBytesPerSecond())
                .field("rateCeilingBytesPerSecond", drain.rateCeilingBytesPerSecond())
                .name("deadlineEpochMs");
        if (drain.deadlineEpochMs() == 0) {
            json.value((String) null).name("deadlineInMs").value((String) null);
        } else {
            json.value(drain.deadlineEpochMs()).name("deadlineInMs").value(drain.deadlineInMs());
        }
        json.field("neededBytesPerSecond", drain.neededBytesPerSecond())
                .field("deadlineWarning", drain.deadlineWarning())
                .field("restored", drain.restored())
                .field("finishing", drain.finishing());
    }

    private static void gc(JsonWriter json, GcSnapshot gc) {
        json.beginObject();
        metrics(json, List.of(CacheMetrics.GC_RUNNING, CacheMetrics.GC_RUNS, CacheMetrics.GC_DURATION_AVERAGE,
                CacheMetrics.GC_DURATION_MAX, CacheMetrics.GC_INTERVAL), gc);
        json.name(CacheMetrics.GC_SINCE_LAST.series().get(0).jsonKey());
        if (gc.sinceLastNs() < 0) {
            json.value((String) null);
        } else {
            json.value(MetricUnit.NANOSECONDS.convert(gc.sinceLastNs(), CacheMetrics.GC_SINCE_LAST.jsonUnit()));
        }
        json.name("buckets").beginObject();
        metrics(json, List.of(CacheMetrics.GC_BUCKETS), gc);
        json.endObject();
        metrics(json, List.of(CacheMetrics.GC_EVICTIONS, CacheMetrics.GC_MOVED, CacheMetrics.GC_COMPACTED,
                CacheMetrics.GC_STALE_KEYS, CacheMetrics.GC_MOVE_CHECKSUM_FAILURES, CacheMetrics.GC_ALLOCATION_WAITS,
                CacheMetrics.GC_SLICE_DURATION), gc);
        json.endObject();
    }

    private static void cache(JsonWriter json, StatsSnapshot.CacheSnapshot cache) {
        json.beginObject();
        metrics(json, List.of(CacheMetrics.BUCKET_SIZE), cache);
        json.name("buckets").beginObject().field("total", cache.bucketsTotal());
        metrics(json, List.of(CacheMetrics.BUCKETS, CacheMetrics.CHECKPOINT_RESERVE), cache);
        json.endObject();
        metrics(json, List.of(CacheMetrics.OCCUPANCY), cache);
        json.name("journal").beginObject();
        metrics(json, List.of(CacheMetrics.JOURNAL_SEQUENCE, CacheMetrics.JOURNAL_ENTRIES, CacheMetrics.JOURNAL_BYTES,
                CacheMetrics.JOURNAL_RING_IN_USE), cache);
        json.endObject();
        metrics(json, List.of(CacheMetrics.CHECKPOINTS, CacheMetrics.CLEAN_COVER_ROUNDS), cache);
        device(json.name("device"), cache.device(), CacheMetrics.DEVICE_ALL);
        json.endObject();
    }

    /** A device: its {@code counters} (the cache device's or a backing device's), what changed, a remote's state. */
    private static void device(JsonWriter json, StatsSnapshot.DeviceSnapshot device,
                               List<MetricDescriptor<?>> counters) {
        json.beginObject().field("name", device.name());
        metrics(json, counters, device);
        json.field("changed", device.changed());
        StatsSnapshot.RemoteSnapshot remote = device.remote();
        if (remote != null) {
            json.name("remote").beginObject();
            metrics(json, List.of(BackingMetrics.REMOTE_CONNECTED), remote);
            json.field("state", remote.state());
            metrics(json, List.of(BackingMetrics.REMOTE_BREAKS, BackingMetrics.REMOTE_RECONNECTS,
                    BackingMetrics.REMOTE_REPLAY_LOG, BackingMetrics.REMOTE_REQUEST_TIMEOUTS), remote);
            json.endObject();
        }
        ObjectStoreStats s3 = device.objectStore();
        if (s3 != null) {
            json.name("s3").beginObject();
            metrics(json, List.of(BackingMetrics.S3_REQUESTS, BackingMetrics.S3_FAILURES, BackingMetrics.S3_RETRIES,
                    BackingMetrics.S3_PUT_BYTES, BackingMetrics.S3_GET_BYTES, BackingMetrics.S3_STAGED), s3);
            json.field("stagedChunksMax", s3.stagedChunksMax());
            metrics(json, List.of(BackingMetrics.S3_LEASE_RENEWALS, BackingMetrics.S3_LEASE_RENEWAL_FAILURES,
                    BackingMetrics.S3_FENCED), s3);
            json.field("ownership", s3.ownership()).endObject();
        }
        json.endObject();
    }
}

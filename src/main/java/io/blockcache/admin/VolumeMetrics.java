package io.blockcache.admin;

import static io.blockcache.admin.MetricDescriptor.counter;
import static io.blockcache.admin.MetricDescriptor.gauge;
import static io.blockcache.admin.MetricScope.DAMAGE_MAP;
import static io.blockcache.admin.MetricScope.VOLUME;
import static io.blockcache.admin.MetricUnit.BOOLEAN;
import static io.blockcache.admin.MetricUnit.BYTES;
import static io.blockcache.admin.MetricUnit.COUNT;
import static io.blockcache.admin.MetricUnit.MICROSECONDS;
import static io.blockcache.admin.MetricUnit.MILLISECONDS;
import static io.blockcache.admin.MetricUnit.NANOSECONDS;
import static io.blockcache.admin.MetricUnit.PERCENT;
import static io.blockcache.admin.MetricUnit.RATIO;
import static io.blockcache.admin.MetricUnit.SECTORS;

import io.blockcache.admin.MetricDescriptor.JsonForm;
import io.blockcache.admin.StatsSnapshot.DamageMapSnapshot;
import io.blockcache.admin.StatsSnapshot.VolumeSnapshot;
import io.blockcache.device.DurationHistogram;
import java.util.List;

/**
 * The metrics of one volume's front end and damage map (docs/OPERATIONS.md §7 "Front end", "Damage map"), label
 * {@code volume}. Sector counts were exported as {@code _sectors_total} until 2026-12-07; those names stay one
 * release as deprecated series.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class VolumeMetrics {
    /** The label value of each operation, by {@code DeviceOp} ordinal: NBD's names (a discard is a trim). */
    private static final List<String> OPS = List.of("read", "write", "flush", "trim");

    public static final MetricDescriptor<VolumeSnapshot> READ_HIT = counter(VOLUME,
            "blockcache_read_hit_bytes_total", SECTORS, "Bytes read from the cache.")
            .json("readHitSectors", VolumeSnapshot::readHitSectors)
            .deprecated("blockcache_read_hit_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> READ_MISS = counter(VOLUME,
            "blockcache_read_miss_bytes_total", SECTORS, "Bytes read from the backing device.")
            .json("readMissSectors", VolumeSnapshot::readMissSectors)
            .deprecated("blockcache_read_miss_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> HIT_RATIO = gauge(VOLUME, "blockcache_hit_ratio", RATIO,
            "Read hit bytes over all read bytes since open.")
            .json("hitRatio", VolumeSnapshot::hitRatio).jsonAs(RATIO, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> WRITE_CACHED = counter(VOLUME,
            "blockcache_write_cached_bytes_total", SECTORS, "Bytes written into the cache.")
            .json("writeCachedSectors", VolumeSnapshot::writeCachedSectors)
            .deprecated("blockcache_write_cached_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> BYPASSED = counter(VOLUME, "blockcache_bypassed_bytes_total",
            SECTORS, "Bytes written around the cache to the backing device.")
            .json("bypassedSectors", VolumeSnapshot::writeBypassedSectors)
            .deprecated("blockcache_bypassed_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> FILL = counter(VOLUME, "blockcache_fill_bytes_total",
            SECTORS, "Bytes copied into the cache after read misses.")
            .json("fillSectors", VolumeSnapshot::fillSectors)
            .deprecated("blockcache_fill_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> CHECKSUM_ERRORS = counter(VOLUME,
            "blockcache_checksum_errors_total", COUNT, "Cache reads whose data failed its CRC32C.")
            .json("checksumErrors", VolumeSnapshot::checksumErrors);
    public static final MetricDescriptor<VolumeSnapshot> DIRTY = gauge(VOLUME, "blockcache_dirty_bytes", BYTES,
            "Bytes in the cache not yet written back.")
            .json("dirtyBytes", VolumeSnapshot::dirtyBytes);
    public static final MetricDescriptor<VolumeSnapshot> CACHED = gauge(VOLUME, "blockcache_cached_bytes", BYTES,
            "Bytes of the volume held in the cache.")
            .json("cachedBytes", VolumeSnapshot::cachedBytes);
    public static final MetricDescriptor<VolumeSnapshot> SIZE = gauge(VOLUME, "blockcache_volume_size_bytes", BYTES,
            "Size of the volume as clients see it.")
            .json("sizeBytes", VolumeSnapshot::sizeBytes);
    public static final MetricDescriptor<VolumeSnapshot> REQUESTS_IN_FLIGHT = gauge(VOLUME,
            "blockcache_requests_in_flight", COUNT, "Front-end requests submitted and not yet answered.")
            .json("requestsInFlight", VolumeSnapshot::requestsInFlight);
    public static final MetricDescriptor<VolumeSnapshot> LATENCY = MetricDescriptor.summary(VOLUME,
            "blockcache_request_latency_seconds", NANOSECONDS, "Deprecated since 2026-12-07 (removed in the next"
                    + " release): use blockcache_request_duration_seconds. Front-end request latency since open.",
            VolumeSnapshot::latency).jsonAs(MICROSECONDS, JsonForm.NUMBER)
            .series("0.5", "latency.p50Us", v -> v.latency().p50Ns())
            .series("0.99", "latency.p99Us", v -> v.latency().p99Ns())
            .series("0.999", "latency.p999Us", v -> v.latency().p999Ns());
    public static final MetricDescriptor<VolumeSnapshot> REQUEST_DURATION = durationsByOp(
            MetricDescriptor.histogram(VOLUME, "blockcache_request_duration_seconds",
                    "Front-end request latency by operation, from submission to answer, since open.",
                    VolumeMetrics::latencyOf).label("op"));
    public static final MetricDescriptor<VolumeSnapshot> HEALTH = healthStates(gauge(VOLUME,
            "blockcache_volume_health", BOOLEAN, "1 for the volume's health state (ok, degraded, failed), 0 for the"
                    + " others.").label("state")).jsonDerived();
    public static final MetricDescriptor<VolumeSnapshot> HEALTH_REASON = healthReasons(gauge(VOLUME,
            "blockcache_volume_health_reason", BOOLEAN, "1 for the reason the volume is not ok, 0 for the others.")
            .label("reason")).jsonDerived();

    public static final MetricDescriptor<VolumeSnapshot> BYPASSED_SEQUENTIAL = counter(VOLUME,
            "blockcache_bypassed_sequential_bytes_total", SECTORS,
            "Bytes of write streams past the sequential cutoff sent around the cache.")
            .json("bypass.sequentialSectors", v -> v.bypass().sequentialSectors())
            .deprecated("blockcache_bypassed_sequential_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> BYPASSED_CONGESTED = counter(VOLUME,
            "blockcache_bypassed_congested_bytes_total", SECTORS,
            "Write bytes sent around the cache while the cache device was congested.")
            .json("bypass.congestedSectors", v -> v.bypass().congestedSectors())
            .deprecated("blockcache_bypassed_congested_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> BYPASSED_OCCUPANCY = counter(VOLUME,
            "blockcache_bypassed_occupancy_bytes_total", SECTORS,
            "Write bytes sent around the cache by the occupancy cutoffs.")
            .json("bypass.occupancySectors", v -> v.bypass().occupancySectors())
            .deprecated("blockcache_bypassed_occupancy_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> BYPASSED_NO_ROOM = counter(VOLUME,
            "blockcache_bypassed_no_room_bytes_total", SECTORS,
            "Write bytes that were to be cached but found no free bucket.")
            .json("bypass.noRoomSectors", v -> v.bypass().noRoomSectors())
            .deprecated("blockcache_bypassed_no_room_sectors_total");
    public static final MetricDescriptor<VolumeSnapshot> ADMITTED = counter(VOLUME,
            "blockcache_admitted_bytes_total", SECTORS, "Read-miss bytes read admission let fill the cache.")
            .json("admission.admittedSectors", v -> v.admission().admittedSectors());
    public static final MetricDescriptor<VolumeSnapshot> REJECTED = counter(VOLUME,
            "blockcache_rejected_bytes_total", SECTORS,
            "Read-miss bytes read admission kept out of the cache (their blocks were not read often enough).")
            .json("admission.rejectedSectors", v -> v.admission().rejectedSectors());
    public static final MetricDescriptor<VolumeSnapshot> PROMOTED = counter(VOLUME,
            "blockcache_promoted_bytes_total", SECTORS,
            "Clean read-hit bytes rewritten from an old bucket into the newest before eviction reached it.")
            .json("admission.promotedSectors", v -> v.admission().promotedSectors());
    public static final MetricDescriptor<VolumeSnapshot> ADMISSION_MEMORY = gauge(VOLUME,
            "blockcache_admission_memory_bytes", BYTES, "Memory of read admission's sketch and ring of recent fills.")
            .json("admission.memoryBytes", v -> v.admission().memoryBytes());
    public static final MetricDescriptor<VolumeSnapshot> PINNED = gauge(VOLUME, "blockcache_pinned_bytes", BYTES,
            "Bytes of the volume's pinned ranges, cached or not (docs/CACHING.md \"Pinning\").")
            .json("admission.pinnedBytes", v -> v.admission().pinnedBytes());
    public static final MetricDescriptor<VolumeSnapshot> THROTTLED_WRITES = counter(VOLUME,
            "blockcache_throttled_writes_total", COUNT, "Write-back writes the throttle held.")
            .json("bypass.throttledWrites", v -> v.bypass().throttledWrites());
    public static final MetricDescriptor<VolumeSnapshot> THROTTLE_DELAY = counter(VOLUME,
            "blockcache_throttle_delay_seconds_total", NANOSECONDS, "Time the throttle held writes in all.")
            .json("bypass.throttleDelayMsTotal", v -> v.bypass().throttleDelayNsTotal())
            .jsonAs(MILLISECONDS, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> THROTTLE_DELAY_MAX = gauge(VOLUME,
            "blockcache_throttle_delay_max_seconds", NANOSECONDS, "The longest the throttle held one write.")
            .json("bypass.throttleDelayMsMax", v -> v.bypass().throttleDelayNsMax())
            .jsonAs(MILLISECONDS, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> IN_USE = gauge(VOLUME, "blockcache_cache_in_use_ratio",
            PERCENT, "Share of the cache's data buckets holding dirty data, as the occupancy cutoffs see it.")
            .json("bypass.inUsePercent", v -> v.bypass().inUsePercent()).jsonAs(PERCENT, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> DIRTY_DATA = gauge(VOLUME,
            "blockcache_cache_dirty_data_ratio", PERCENT,
            "The cache's dirty data over its data capacity, as the write throttle sees it.")
            .json("bypass.dirtyDataPercent", v -> v.bypass().dirtyDataPercent()).jsonAs(PERCENT, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> CACHE_READ_LATENCY = gauge(VOLUME,
            "blockcache_cache_read_latency_average_seconds", NANOSECONDS,
            "Recent average cache-device read latency, as the congestion check sees it.")
            .json("bypass.cacheReadLatencyUs", v -> v.bypass().cacheReadLatencyNs())
            .jsonAs(MICROSECONDS, JsonForm.NUMBER);
    public static final MetricDescriptor<VolumeSnapshot> CACHE_WRITE_LATENCY = gauge(VOLUME,
            "blockcache_cache_write_latency_average_seconds", NANOSECONDS,
            "Recent average cache-device write latency, as the congestion check sees it.")
            .json("bypass.cacheWriteLatencyUs", v -> v.bypass().cacheWriteLatencyNs())
            .jsonAs(MICROSECONDS, JsonForm.NUMBER);

    public static final MetricDescriptor<DamageMapSnapshot> MAP_REGIONS_MARKED = counter(DAMAGE_MAP,
            "blockcache_damage_map_regions_marked_total", COUNT, "Damage map regions newly marked by front-end writes.")
            .json("regionsMarked", DamageMapSnapshot::regionsMarked);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_REGIONS_CLEARED = counter(DAMAGE_MAP,
            "blockcache_damage_map_regions_cleared_total", COUNT, "Damage map regions cleared by sweeps.")
            .json("regionsCleared", DamageMapSnapshot::regionsCleared);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_MARK_WAITS = counter(DAMAGE_MAP,
            "blockcache_damage_map_mark_waits_total", COUNT,
            "Front-end writes that waited for a damage map write before their acknowledgement.")
            .json("markWaits", DamageMapSnapshot::markWaits);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_WRITES_COVERED = counter(DAMAGE_MAP,
            "blockcache_damage_map_writes_covered_total", COUNT,
            "Front-end writes whose regions were already marked (no damage map write).")
            .json("writesCovered", DamageMapSnapshot::writesCovered);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_BLOCK_WRITES = counter(DAMAGE_MAP,
            "blockcache_damage_map_block_writes_total", COUNT,
            "Damage map block writes (FUA), to the backing device or the map file.")
            .json("blockWrites", DamageMapSnapshot::blockWrites);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_BLOCK_WRITE_ERRORS = counter(DAMAGE_MAP,
            "blockcache_damage_map_block_write_errors_total", COUNT,
            "Damage map block writes that failed (the regions stay marked).")
            .json("blockWriteErrors", DamageMapSnapshot::blockWriteErrors);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_SWEEPS = counter(DAMAGE_MAP,
            "blockcache_damage_map_sweeps_total", COUNT, "Damage map sweeps run.")
            .json("sweeps", DamageMapSnapshot::sweeps);
    public static final MetricDescriptor<DamageMapSnapshot> MAP_CONSISTENT_EPOCH = gauge(DAMAGE_MAP,
            "blockcache_damage_map_consistent_epoch", COUNT, "The flush epoch the damage map says the backing device"
                    + " is consistent as of (ordering=epochs); absent while it says no such thing.")
            .json("consistentAsOfEpoch", DamageMapSnapshot::consistentAsOfEpoch).jsonDerived()
            .only(map -> map.consistentAsOfEpoch() >= 0);

    /** In the order {@code /metrics} lists them. */
    static final List<MetricDescriptor<?>> ALL = List.of(READ_HIT, READ_MISS, WRITE_CACHED, BYPASSED,
            BYPASSED_SEQUENTIAL, BYPASSED_CONGESTED, BYPASSED_OCCUPANCY, BYPASSED_NO_ROOM, THROTTLED_WRITES,
            THROTTLE_DELAY, THROTTLE_DELAY_MAX, IN_USE, DIRTY_DATA, CACHE_READ_LATENCY, CACHE_WRITE_LATENCY, FILL,
            CHECKSUM_ERRORS, HIT_RATIO, ADMITTED, REJECTED, PROMOTED, ADMISSION_MEMORY, PINNED, DIRTY, CACHED, SIZE,
            REQUESTS_IN_FLIGHT, LATENCY, MAP_REGIONS_MARKED,
            MAP_REGIONS_CLEARED, MAP_MARK_WAITS, MAP_WRITES_COVERED, MAP_BLOCK_WRITES, MAP_BLOCK_WRITE_ERRORS,
            MAP_SWEEPS, MAP_CONSISTENT_EPOCH, REQUEST_DURATION, HEALTH, HEALTH_REASON);

    private VolumeMetrics() {
    }

    private static DurationHistogram.Counts latencyOf(VolumeSnapshot volume, String op) {
        return volume.latencyByOp().get(OPS.indexOf(op));
    }

    private static MetricDescriptor<VolumeSnapshot> durationsByOp(MetricDescriptor<VolumeSnapshot> histogram) {
        MetricDescriptor<VolumeSnapshot> all = histogram;
        for (String op : OPS) {
            all = all.series(op, "latency.byOp." + op, v -> latencyOf(v, op).count());
        }
        return all;
    }

    private static MetricDescriptor<VolumeSnapshot> healthStates(MetricDescriptor<VolumeSnapshot> gauge) {
        MetricDescriptor<VolumeSnapshot> all = gauge;
        for (VolumeHealth.State state : VolumeHealth.State.values()) {
            all = all.series(state.label(), "health.state", v -> v.health().state() == state ? 1 : 0);
        }
        return all;
    }

    private static MetricDescriptor<VolumeSnapshot> healthReasons(MetricDescriptor<VolumeSnapshot> gauge) {
        MetricDescriptor<VolumeSnapshot> all = gauge;
        for (VolumeHealth.Reason reason : VolumeHealth.Reason.values()) {
            if (reason != VolumeHealth.Reason.NONE) {
                all = all.series(reason.label(), "health.reason", v -> v.health().reason() == reason ? 1 : 0);
            }
        }
        return all;
    }
}

package io.blockcache.admin;

import io.blockcache.device.BlockDevice;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Renders a {@link StatsSnapshot} in the Prometheus text exposition format 0.0.4, by hand: one
 * {@code # HELP} and one {@code # TYPE} line per metric family, then its samples. Names end in their unit
 * ({@code _bytes}, {@code _sectors_total}, {@code _seconds}); counters end in {@code _total}.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class PrometheusText {
    /** The Content-Type Prometheus expects for this format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(8192);

    private PrometheusText() {
    }

    /** The whole exposition. */
    static String render(StatsSnapshot stats) {
        PrometheusText text = new PrometheusText();
        text.volumes(stats.volumes());
        text.cache(stats.cache());
        text.backings(stats.backings());
        text.writeback(stats.volumes());
        text.gc(stats.gc());
        return text.out.toString();
    }

    private void volumes(List<StatsSnapshot.VolumeSnapshot> volumes) {
        volumeFamily(volumes, "blockcache_read_hit_sectors_total", "counter", "Sectors read from the cache.",
                StatsSnapshot.VolumeSnapshot::readHitSectors);
        volumeFamily(volumes, "blockcache_read_miss_sectors_total", "counter",
                "Sectors read from the backing device.", StatsSnapshot.VolumeSnapshot::readMissSectors);
        volumeFamily(volumes, "blockcache_write_cached_sectors_total", "counter", "Sectors written into the cache.",
                StatsSnapshot.VolumeSnapshot::writeCachedSectors);
        volumeFamily(volumes, "blockcache_bypassed_sectors_total", "counter",
                "Sectors written around the cache to the backing device.",
                StatsSnapshot.VolumeSnapshot::writeBypassedSectors);
        volumeFamily(volumes, "blockcache_fill_sectors_total", "counter",
                "Sectors copied into the cache after read misses.", StatsSnapshot.VolumeSnapshot::fillSectors);
        volumeFamily(volumes, "blockcache_checksum_errors_total", "counter",
                "Cache reads whose data failed its CRC32C.", StatsSnapshot.VolumeSnapshot::checksumErrors);
        volumeFamily(volumes, "blockcache_hit_ratio", "gauge", "Read hit sectors over all read sectors since open.",
                StatsSnapshot.VolumeSnapshot::hitRatio);
        volumeFamily(volumes, "blockcache_dirty_bytes", "gauge", "Bytes in the cache not yet written back.",
                StatsSnapshot.VolumeSnapshot::dirtyBytes);
        volumeFamily(volumes, "blockcache_cached_bytes", "gauge", "Bytes of the volume held in the cache.",
                StatsSnapshot.VolumeSnapshot::cachedBytes);
        volumeFamily(volumes, "blockcache_volume_size_bytes", "gauge", "Size of the volume as clients see it.",
                StatsSnapshot.VolumeSnapshot::sizeBytes);
        volumeFamily(volumes, "blockcache_requests_in_flight", "gauge",
                "Front-end requests submitted and not yet answered.", StatsSnapshot.VolumeSnapshot::requestsInFlight);
        header("blockcache_request_latency_seconds", "summary", "Front-end request latency since open.");
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            String label = "volume=\"" + escape(volume.name()) + "\"";
            StatsSnapshot.LatencySummary latency = volume.latency();
            quantile(label, "0.5", latency.p50Ns());
            quantile(label, "0.99", latency.p99Ns());
            quantile(label, "0.999", latency.p999Ns());
            sample("blockcache_request_latency_seconds_sum", label, latency.sumNs() / 1e9);
            sample("blockcache_request_latency_seconds_count", label, latency.count());
        }
    }

    private void quantile(String label, String quantile, long valueNs) {
        sample("blockcache_request_latency_seconds", label + ",quantile=\"" + quantile + "\"", valueNs / 1e9);
    }

    private void volumeFamily(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String type, String help,
                              ToDoubleFunction<StatsSnapshot.VolumeSnapshot> value) {
        header(name, type, help);
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            sample(name, "volume=\"" + escape(volume.name()) + "\"", value.applyAsDouble(volume));
        }
    }

    private void cache(StatsSnapshot.CacheSnapshot cache) {
        header("blockcache_buckets", "gauge", "Buckets of the cache device by state.");
        bucket("free", cache.bucketsFree());
        bucket("open", cache.bucketsOpen());
        bucket("sealed", cache.bucketsSealed());
        bucket("reuse_pending", cache.bucketsReusePending());
        bucket("journal", cache.bucketsJournal());
        bucket("metadata", cache.bucketsMetadata());
        single("blockcache_bucket_size_bytes", "gauge", "Size of one bucket.", cache.bucketSizeBytes());
        single("blockcache_cache_occupancy_ratio", "gauge",
                "Buckets in use over buckets outside the journal ring, in [0, 1].", cache.occupancyPercent() / 100);
        single("blockcache_journal_durable_sequence", "gauge", "Sequence of the newest durable journal entry.",
                cache.journalDurableSequence());
        single("blockcache_journal_entries_written_total", "counter", "Journal entries written since open.",
                cache.journalEntriesWritten());
        single("blockcache_journal_written_bytes_total", "counter", "Bytes of journal entries written since open.",
                cache.journalBytesWritten());
        single("blockcache_journal_ring_buckets_in_use", "gauge", "Journal ring buckets that replay still needs.",
                cache.journalRingBucketsInUse());
        single("blockcache_checkpoints_written_total", "counter", "Checkpoints written since open.",
                cache.checkpointsWritten());
    }

    private void writeback(List<StatsSnapshot.VolumeSnapshot> volumes) {
        wb(volumes, "blockcache_writeback_running", "gauge", "1 if writeback runs, 0 if paused by its knob.",
                w -> w.running() ? 1 : 0);
        wb(volumes, "blockcache_writeback_front_end_idle", "gauge",
                "1 if the front end was idle at the last sample (writeback then runs at full speed).",
                w -> w.frontEndIdle() ? 1 : 0);
        wb(volumes, "blockcache_writeback_draining", "gauge", "1 while a drain started through the admin API runs.",
                w -> w.drain().state().equals("running") ? 1 : 0);
        wb(volumes, "blockcache_writeback_written_bytes_total", "counter",
                "Bytes written back and marked clean behind a backing flush.",
                w -> w.writtenBackSectors() * (double) BlockDevice.SECTOR_BYTES);
        wb(volumes, "blockcache_writeback_backing_write_bytes_total", "counter",
                "Bytes in backing writes writeback issued.",
                w -> w.backingWriteSectors() * (double) BlockDevice.SECTOR_BYTES);
        wb(volumes, "blockcache_writeback_passes_total", "counter", "Writeback passes started.",
                WritebackSnapshot::passes);
        wb(volumes, "blockcache_writeback_keys_in_flight", "gauge", "Keys between pass start and clean marking.",
                WritebackSnapshot::keysInFlight);
        wb(volumes, "blockcache_writeback_backing_writes_in_flight", "gauge",
                "Writeback's own backing writes in flight.", WritebackSnapshot::backingWritesInFlight);
        wb(volumes, "blockcache_writeback_measured_backing_bytes_per_second", "gauge",
                "Backing bandwidth measured by the queue governor.", WritebackSnapshot::measuredBackingBytesPerSecond);
        wb(volumes, "blockcache_writeback_rate_sectors_per_second", "gauge",
                "PI-controlled writeback rate while the front end is busy.", w -> w.rate().rateSectorsPerSecond());
        wb(volumes, "blockcache_writeback_rate_target_sectors", "gauge", "Dirty sectors the rate controller aims at.",
                w -> w.rate().targetSectors());
        wb(volumes, "blockcache_writeback_rate_error_sectors", "gauge", "Dirty minus target sectors.",
                w -> w.rate().errorSectors());
        wb(volumes, "blockcache_writeback_rate_proportional_sectors_per_second", "gauge", "P term of the rate.",
                w -> w.rate().proportionalSectorsPerSecond());
        wb(volumes, "blockcache_writeback_rate_integral_sectors_per_second", "gauge", "I term of the rate.",
                w -> w.rate().integralSectorsPerSecond());
        wb(volumes, "blockcache_writeback_rate_change_sectors_per_second", "gauge",
                "Change of the rate at the last update.", w -> w.rate().changeSectorsPerSecond());
        wb(volumes, "blockcache_writeback_rate_fragment_boost_sectors_per_second", "gauge",
                "Fragmentation term of the rate (0 when it did not apply).",
                w -> w.rate().fragmentBoostSectorsPerSecond());
        header("blockcache_writeback_errors_total", "counter", "Writeback failures by kind; their keys stay dirty.");
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            String label = volumeLabel(volume);
            WritebackSnapshot w = volume.writeback();
            sample("blockcache_writeback_errors_total", label + ",kind=\"cache_read\"", w.readErrors());
            sample("blockcache_writeback_errors_total", label + ",kind=\"checksum\"", w.checksumErrors());
            sample("blockcache_writeback_errors_total", label + ",kind=\"backing_write\"", w.writeErrors());
            sample("blockcache_writeback_errors_total", label + ",kind=\"backing_flush\"", w.flushErrors());
        }
    }

    private void wb(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String type, String help,
                    ToDoubleFunction<WritebackSnapshot> value) {
        volumeFamily(volumes, name, type, help, volume -> value.applyAsDouble(volume.writeback()));
    }

    private void gc(GcSnapshot gc) {
        single("blockcache_gc_running", "gauge", "1 while a GC run is in progress.", gc.running() ? 1 : 0);
        single("blockcache_gc_runs_total", "counter", "Completed GC runs.", gc.runs());
        header("blockcache_gc_duration_seconds", "gauge", "GC run duration: EWMA average and maximum.");
        sample("blockcache_gc_duration_seconds", "stat=\"average\"", gc.durationNsAverage() / 1e9);
        sample("blockcache_gc_duration_seconds", "stat=\"max\"", gc.durationNsMax() / 1e9);
        single("blockcache_gc_interval_average_seconds", "gauge", "EWMA average time between GC run starts.",
                gc.intervalNsAverage() / 1e9);
        header("blockcache_gc_since_last_seconds", "gauge", "Time since the last GC run ended (absent before one).");
        if (gc.sinceLastNs() >= 0) {
            sample("blockcache_gc_since_last_seconds", null, gc.sinceLastNs() / 1e9);
        }
        GcSnapshot.Buckets b = gc.buckets();
        header("blockcache_gc_buckets", "gauge", "Buckets as GC classifies them.");
        int[] counts = {b.free(), b.reusePending(), b.open(), b.clean(), b.dirty(), b.emptyWaiting(), b.metadata(),
                b.journal()};
        String[] states = {"free", "reuse_pending", "open", "clean", "dirty", "empty_waiting", "metadata", "journal"};
        for (int i = 0; i < states.length; i++) {
            sample("blockcache_gc_buckets", "state=\"" + states[i] + "\"", counts[i]);
        }
        single("blockcache_gc_evictions_total", "counter", "Clean buckets evicted by GC.", gc.bucketsEvicted());
        single("blockcache_gc_moved_bytes_total", "counter", "Bytes moving GC copied.", gc.movedBytes());
        single("blockcache_gc_stale_keys_dropped_total", "counter", "Stale keys GC marks dropped.",
                gc.staleKeysDropped());
        single("blockcache_gc_move_checksum_failures_total", "counter",
                "Pieces moving GC left in place because their data failed its CRC32C.", gc.moveChecksumFailures());
        single("blockcache_gc_allocation_waits_total", "counter",
                "Data allocations refused; each sent a write or fill around the cache.", gc.allocationWaits());
    }

    private static String volumeLabel(StatsSnapshot.VolumeSnapshot volume) {
        return "volume=\"" + escape(volume.name()) + "\"";
    }

    private void bucket(String state, int count) {
        sample("blockcache_buckets", "state=\"" + state + "\"", count);
    }

    private void backings(List<StatsSnapshot.DeviceSnapshot> backings) {
        header("blockcache_backing_requests_in_flight", "gauge",
                "Requests submitted to the backing device and not yet completed (its queue depth).");
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            sample("blockcache_backing_requests_in_flight", deviceLabel(device), device.requestsInFlight());
        }
        header("blockcache_backing_completed_sectors_total", "counter",
                "Sectors the backing device completed, by operation.");
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            String label = deviceLabel(device);
            sample("blockcache_backing_completed_sectors_total", label + ",op=\"read\"", device.completedReadSectors());
            sample("blockcache_backing_completed_sectors_total", label + ",op=\"write\"",
                    device.completedWriteSectors());
        }
        header("blockcache_backing_errors_total", "counter", "Backing-device requests that failed.");
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            sample("blockcache_backing_errors_total", deviceLabel(device), device.errors());
        }
    }

    private static String deviceLabel(StatsSnapshot.DeviceSnapshot device) {
        return "volume=\"" + escape(device.name()) + "\"";
    }

    private void single(String name, String type, String help, double value) {
        header(name, type, help);
        sample(name, null, value);
    }

    private void header(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(String name, String labels, double value) {
        out.append(name);
        if (labels != null) {
            out.append('{').append(labels).append('}');
        }
        out.append(' ').append(number(value)).append('\n');
    }

    /** Integers without a fraction (exact up to 2^53, beyond any counter we keep), the rest as Java prints them. */
    private static String number(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** Escapes a label value as the format requires: backslash, double quote and line feed. */
    static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}

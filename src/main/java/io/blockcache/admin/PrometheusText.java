package io.blockcache.admin;

import io.blockcache.admin.MetricFamilies.Sample;
import io.blockcache.device.BlockDevice;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Renders a {@link StatsSnapshot} in the Prometheus text exposition format 0.0.4 through the Prometheus
 * Java client's model and writer ({@code prometheus-metrics-exposition-textformats}). This class only
 * decides which families exist, their names, help and labels: names end in their unit ({@code _bytes},
 * {@code _sectors_total}, {@code _seconds}); counters end in {@code _total}.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class PrometheusText {
    /** The Content-Type Prometheus expects for this format. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();
    private static final int OUTPUT_BYTES_INITIAL = 16 * 1024;

    private final MetricFamilies families = new MetricFamilies();

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
        if (stats.nbd() != null) {
            text.nbd(stats.nbd());
        }
        if (!stats.files().isEmpty()) {
            text.families.gauge("blockcache_file_sparse_beyond_free_bytes", "Bytes of a sparse cache or backing file"
                    + " not yet allocated beyond the free space of its file system: writes there would fail with"
                    + " ENOSPC. -1: unknown.", stats.files().stream()
                    .map(file -> Sample.of(file.sparseBeyondFreeBytes(), "file", file.label())).toList());
        }
        if (stats.admin() != null) {
            text.counter("blockcache_admin_unauthorized_requests_total", "Admin API requests refused (401) for a"
                    + " missing or wrong bearer token.", stats.admin().unauthorizedRequests());
            text.families.counter("blockcache_admin_refused_requests_total", "Admin API requests refused over the"
                    + " limits on requests in progress, by limit (429 per address; a closed connection in total).",
                    List.of(Sample.of(stats.admin().refusedAddressMax(), "limit", "address"),
                            Sample.of(stats.admin().refusedRequestsMax(), "limit", "total")));
            text.counter("blockcache_admin_request_timeouts_total", "Admin API requests cut off (408 or a closed"
                    + " connection) for arriving too slowly or not being answered in time.",
                    stats.admin().requestTimeouts());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(OUTPUT_BYTES_INITIAL);
        try {
            WRITER.write(out, text.families.snapshots());
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private void volumes(List<StatsSnapshot.VolumeSnapshot> volumes) {
        volumeCounter(volumes, "blockcache_read_hit_sectors_total", "Sectors read from the cache.",
                StatsSnapshot.VolumeSnapshot::readHitSectors);
        volumeCounter(volumes, "blockcache_read_miss_sectors_total", "Sectors read from the backing device.",
                StatsSnapshot.VolumeSnapshot::readMissSectors);
        volumeCounter(volumes, "blockcache_write_cached_sectors_total", "Sectors written into the cache.",
                StatsSnapshot.VolumeSnapshot::writeCachedSectors);
        volumeCounter(volumes, "blockcache_bypassed_sectors_total",
                "Sectors written around the cache to the backing device.",
                StatsSnapshot.VolumeSnapshot::writeBypassedSectors);
        volumeCounter(volumes, "blockcache_bypassed_sequential_sectors_total",
                "Sectors of write streams past the sequential cutoff sent around the cache.",
                v -> v.bypass().sequentialSectors());
        volumeCounter(volumes, "blockcache_bypassed_congested_sectors_total",
                "Write sectors sent around the cache while the cache device was congested.",
                v -> v.bypass().congestedSectors());
        volumeCounter(volumes, "blockcache_bypassed_occupancy_sectors_total",
                "Write sectors sent around the cache by the occupancy cutoffs.", v -> v.bypass().occupancySectors());
        volumeCounter(volumes, "blockcache_bypassed_no_room_sectors_total",
                "Write sectors that were to be cached but found no free bucket.", v -> v.bypass().noRoomSectors());
        volumeCounter(volumes, "blockcache_throttled_writes_total", "Write-back writes the throttle held.",
                v -> v.bypass().throttledWrites());
        volumeCounter(volumes, "blockcache_throttle_delay_seconds_total", "Time the throttle held writes in all.",
                v -> v.bypass().throttleDelayNsTotal() / 1e9);
        volumeGauge(volumes, "blockcache_cache_in_use_ratio",
                "Share of the cache's data buckets holding dirty data, as the occupancy cutoffs see it.",
                v -> v.bypass().inUsePercent() / 100);
        volumeGauge(volumes, "blockcache_cache_dirty_data_ratio",
                "The cache's dirty data over its data capacity, as the write throttle sees it.",
                v -> v.bypass().dirtyDataPercent() / 100);
        volumeGauge(volumes, "blockcache_cache_read_latency_average_seconds",
                "Recent average cache-device read latency, as the congestion check sees it.",
                v -> v.bypass().cacheReadLatencyNs() / 1e9);
        volumeGauge(volumes, "blockcache_cache_write_latency_average_seconds",
                "Recent average cache-device write latency, as the congestion check sees it.",
                v -> v.bypass().cacheWriteLatencyNs() / 1e9);
        volumeCounter(volumes, "blockcache_fill_sectors_total", "Sectors copied into the cache after read misses.",
                StatsSnapshot.VolumeSnapshot::fillSectors);
        volumeCounter(volumes, "blockcache_checksum_errors_total", "Cache reads whose data failed its CRC32C.",
                StatsSnapshot.VolumeSnapshot::checksumErrors);
        volumeGauge(volumes, "blockcache_hit_ratio", "Read hit sectors over all read sectors since open.",
                StatsSnapshot.VolumeSnapshot::hitRatio);
        volumeGauge(volumes, "blockcache_dirty_bytes", "Bytes in the cache not yet written back.",
                StatsSnapshot.VolumeSnapshot::dirtyBytes);
        volumeGauge(volumes, "blockcache_cached_bytes", "Bytes of the volume held in the cache.",
                StatsSnapshot.VolumeSnapshot::cachedBytes);
        volumeGauge(volumes, "blockcache_volume_size_bytes", "Size of the volume as clients see it.",
                StatsSnapshot.VolumeSnapshot::sizeBytes);
        volumeGauge(volumes, "blockcache_requests_in_flight", "Front-end requests submitted and not yet answered.",
                StatsSnapshot.VolumeSnapshot::requestsInFlight);
        SummarySnapshot.Builder latency = SummarySnapshot.builder().name("blockcache_request_latency_seconds")
                .help("Front-end request latency since open.");
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            StatsSnapshot.LatencySummary summary = volume.latency();
            latency.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                    .labels(volumeLabels(volume.name()))
                    .quantiles(Quantiles.of(new Quantile(0.5, summary.p50Ns() / 1e9),
                            new Quantile(0.99, summary.p99Ns() / 1e9), new Quantile(0.999, summary.p999Ns() / 1e9)))
                    .sum(summary.sumNs() / 1e9).count(summary.count()).build());
        }
        families.add(latency.build());
        damageMaps(volumes);
    }

    /** The damage map counters of the volumes that have a map (docs/WRITEBACK.md "The damage map"). */
    private void damageMaps(List<StatsSnapshot.VolumeSnapshot> volumes) {
        List<StatsSnapshot.VolumeSnapshot> mapped = volumes.stream().filter(v -> v.damageMap() != null).toList();
        volumeCounter(mapped, "blockcache_damage_map_regions_marked_total",
                "Damage map regions newly marked by front-end writes.", v -> v.damageMap().regionsMarked());
        volumeCounter(mapped, "blockcache_damage_map_regions_cleared_total",
                "Damage map regions cleared by sweeps.", v -> v.damageMap().regionsCleared());
        volumeCounter(mapped, "blockcache_damage_map_mark_waits_total",
                "Front-end writes that waited for a damage map write before their acknowledgement.",
                v -> v.damageMap().markWaits());
        volumeCounter(mapped, "blockcache_damage_map_block_writes_total",
                "Damage map block writes (FUA), to the backing device or the map file.",
                v -> v.damageMap().blockWrites());
        volumeCounter(mapped, "blockcache_damage_map_block_write_errors_total",
                "Damage map block writes that failed (the regions stay marked).",
                v -> v.damageMap().blockWriteErrors());
        volumeCounter(mapped, "blockcache_damage_map_sweeps_total", "Damage map sweeps run.",
                v -> v.damageMap().sweeps());
        volumeGauge(mapped.stream().filter(v -> v.damageMap().consistentAsOfEpoch() >= 0).toList(),
                "blockcache_damage_map_consistent_epoch", "The flush epoch the damage map says the backing device is"
                        + " consistent as of (ordering=epochs); absent while it says no such thing.",
                v -> v.damageMap().consistentAsOfEpoch());
    }

    private void cache(StatsSnapshot.CacheSnapshot cache) {
        gauge("blockcache_cache_device_changed", "1 once the cache file changed under the cache (deleted, replaced,"
                + " truncated): drain every volume before stopping; /api/stats says why.",
                cache.device().changed() != null ? 1 : 0);
        families.gauge("blockcache_buckets", "Buckets of the cache device by state.", List.of(
                Sample.of(cache.bucketsFree(), "state", "free"),
                Sample.of(cache.bucketsOpen(), "state", "open"),
                Sample.of(cache.bucketsSealed(), "state", "sealed"),
                Sample.of(cache.bucketsReusePending(), "state", "reuse_pending"),
                Sample.of(cache.bucketsJournal(), "state", "journal"),
                Sample.of(cache.bucketsMetadata(), "state", "metadata")));
        gauge("blockcache_bucket_size_bytes", "Size of one bucket.", cache.bucketSizeBytes());
        gauge("blockcache_cache_occupancy_ratio", "Buckets in use over buckets outside the journal ring, in [0, 1].",
                cache.occupancyPercent() / 100);
        gauge("blockcache_journal_durable_sequence", "Sequence of the newest durable journal entry.",
                cache.journalDurableSequence());
        counter("blockcache_journal_entries_written_total", "Journal entries written since open.",
                cache.journalEntriesWritten());
        counter("blockcache_journal_written_bytes_total", "Bytes of journal entries written since open.",
                cache.journalBytesWritten());
        gauge("blockcache_journal_ring_buckets_in_use", "Journal ring buckets that replay still needs.",
                cache.journalRingBucketsInUse());
        counter("blockcache_checkpoints_written_total", "Checkpoints written since open.", cache.checkpointsWritten());
    }

    private void writeback(List<StatsSnapshot.VolumeSnapshot> volumes) {
        wbGauge(volumes, "blockcache_writeback_running", "1 if writeback runs, 0 if paused by its knob.",
                w -> w.running() ? 1 : 0);
        wbGauge(volumes, "blockcache_writeback_front_end_idle",
                "1 if the front end was idle at the last sample (writeback then runs at full speed).",
                w -> w.frontEndIdle() ? 1 : 0);
        wbGauge(volumes, "blockcache_writeback_draining", "1 while a drain started through the admin API runs.",
                w -> w.drain().state().equals("running") ? 1 : 0);
        wbCounter(volumes, "blockcache_writeback_written_bytes_total",
                "Bytes written back and marked clean behind a backing flush.",
                w -> w.writtenBackSectors() * (double) BlockDevice.SECTOR_BYTES);
        wbCounter(volumes, "blockcache_writeback_backing_write_bytes_total",
                "Bytes in backing writes writeback issued.",
                w -> w.backingWriteSectors() * (double) BlockDevice.SECTOR_BYTES);
        wbCounter(volumes, "blockcache_writeback_passes_total", "Writeback passes started.", WritebackSnapshot::passes);
        wbGauge(volumes, "blockcache_writeback_keys_in_flight", "Keys between pass start and clean marking.",
                WritebackSnapshot::keysInFlight);
        wbGauge(volumes, "blockcache_writeback_backing_writes_in_flight", "Writeback's own backing writes in flight.",
                WritebackSnapshot::backingWritesInFlight);
        wbGauge(volumes, "blockcache_writeback_measured_backing_bytes_per_second",
                "Backing bandwidth measured by the queue governor.", WritebackSnapshot::measuredBackingBytesPerSecond);
        wbGauge(volumes, "blockcache_writeback_rate_sectors_per_second",
                "PI-controlled writeback rate while the front end is busy.", w -> w.rate().rateSectorsPerSecond());
        wbGauge(volumes, "blockcache_writeback_rate_target_sectors", "Dirty sectors the rate controller aims at.",
                w -> w.rate().targetSectors());
        wbGauge(volumes, "blockcache_writeback_rate_error_sectors", "Dirty minus target sectors.",
                w -> w.rate().errorSectors());
        wbGauge(volumes, "blockcache_writeback_rate_proportional_sectors_per_second", "P term of the rate.",
                w -> w.rate().proportionalSectorsPerSecond());
        wbGauge(volumes, "blockcache_writeback_rate_integral_sectors_per_second", "I term of the rate.",
                w -> w.rate().integralSectorsPerSecond());
        wbGauge(volumes, "blockcache_writeback_rate_change_sectors_per_second",
                "Change of the rate at the last update.", w -> w.rate().changeSectorsPerSecond());
        wbGauge(volumes, "blockcache_writeback_rate_fragment_boost_sectors_per_second",
                "Fragmentation term of the rate (0 when it did not apply).",
                w -> w.rate().fragmentBoostSectorsPerSecond());
        List<Sample> errors = new ArrayList<>();
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            WritebackSnapshot w = volume.writeback();
            errors.add(Sample.of(w.readErrors(), "volume", volume.name(), "kind", "cache_read"));
            errors.add(Sample.of(w.checksumErrors(), "volume", volume.name(), "kind", "checksum"));
            errors.add(Sample.of(w.writeErrors(), "volume", volume.name(), "kind", "backing_write"));
            errors.add(Sample.of(w.flushErrors(), "volume", volume.name(), "kind", "backing_flush"));
        }
        families.counter("blockcache_writeback_errors_total", "Writeback failures by kind; their keys stay dirty.",
                errors);
        wbGauge(volumes, "blockcache_writeback_dirty_epochs",
                "Flush epochs that still hold dirty data (ordering=epochs; 0 without it).",
                w -> w.epochs().dirtyEpochs());
        wbCounter(volumes, "blockcache_writeback_log_groups_total", "Groups of epochs journaled write-back committed to"
                + " the backing log (ordering=journaled).", w -> w.epochs().logGroups());
        wbCounter(volumes, "blockcache_writeback_epoch_waits_total",
                "Front-end requests that waited for older epochs to be written back.", w -> w.epochs().waitsTotal());
        wbGauge(volumes, "blockcache_volume_degraded", "1 once the volume's backing file changed under it (deleted,"
                + " replaced, truncated): writeback is held until a restart; /api/stats says why.",
                w -> w.degraded() != null ? 1 : 0);
        wbGauge(volumes, "blockcache_writeback_order_held", "1 while the volume holds writeback and writes around the"
                + " cache until an ordering switch is durable; long at 1 means a failing journal or map device.",
                w -> w.epochs().orderHeld() ? 1 : 0);
    }

    private void gc(GcSnapshot gc) {
        gauge("blockcache_gc_running", "1 while a GC run is in progress.", gc.running() ? 1 : 0);
        counter("blockcache_gc_runs_total", "Completed GC runs.", gc.runs());
        families.gauge("blockcache_gc_duration_seconds", "GC run duration: EWMA average and maximum.", List.of(
                Sample.of(gc.durationNsAverage() / 1e9, "stat", "average"),
                Sample.of(gc.durationNsMax() / 1e9, "stat", "max")));
        gauge("blockcache_gc_interval_average_seconds", "EWMA average time between GC run starts.",
                gc.intervalNsAverage() / 1e9);
        families.gauge("blockcache_gc_since_last_seconds", "Time since the last GC run ended (absent before one).",
                gc.sinceLastNs() >= 0 ? List.of(Sample.of(gc.sinceLastNs() / 1e9)) : List.of());
        GcSnapshot.Buckets b = gc.buckets();
        families.gauge("blockcache_gc_buckets", "Buckets as GC classifies them.", List.of(
                Sample.of(b.free(), "state", "free"), Sample.of(b.reusePending(), "state", "reuse_pending"),
                Sample.of(b.open(), "state", "open"), Sample.of(b.clean(), "state", "clean"),
                Sample.of(b.dirty(), "state", "dirty"), Sample.of(b.emptyWaiting(), "state", "empty_waiting"),
                Sample.of(b.metadata(), "state", "metadata"), Sample.of(b.journal(), "state", "journal")));
        counter("blockcache_gc_evictions_total", "Clean buckets evicted by GC.", gc.bucketsEvicted());
        counter("blockcache_gc_moved_bytes_total", "Bytes moving GC copied.", gc.movedBytes());
        counter("blockcache_gc_compacted_buckets_total", "Dirty buckets chosen for compaction.",
                gc.compactedBuckets());
        counter("blockcache_gc_stale_keys_dropped_total", "Stale keys GC marks dropped.", gc.staleKeysDropped());
        counter("blockcache_gc_move_checksum_failures_total",
                "Pieces moving GC left in place because their data failed its CRC32C.", gc.moveChecksumFailures());
        counter("blockcache_gc_allocation_waits_total",
                "Data allocations refused; each sent a write or fill around the cache.", gc.allocationWaits());
    }

    private void backings(List<StatsSnapshot.DeviceSnapshot> backings) {
        List<Sample> inFlight = new ArrayList<>();
        List<Sample> completed = new ArrayList<>();
        List<Sample> errors = new ArrayList<>();
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            inFlight.add(Sample.of(device.requestsInFlight(), "volume", device.name()));
            completed.add(Sample.of(device.completedReadSectors(), "volume", device.name(), "op", "read"));
            completed.add(Sample.of(device.completedWriteSectors(), "volume", device.name(), "op", "write"));
            errors.add(Sample.of(device.errors(), "volume", device.name()));
        }
        families.gauge("blockcache_backing_requests_in_flight",
                "Requests submitted to the backing device and not yet completed (its queue depth).", inFlight);
        families.counter("blockcache_backing_completed_sectors_total",
                "Sectors the backing device completed, by operation.", completed);
        families.counter("blockcache_backing_errors_total", "Backing-device requests that failed.", errors);
        BackingMetrics.add(families, backings);
    }

    private void volumeCounter(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String help,
                               ToDoubleFunction<StatsSnapshot.VolumeSnapshot> value) {
        families.counter(name, help, perVolume(volumes, value));
    }

    private void volumeGauge(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String help,
                             ToDoubleFunction<StatsSnapshot.VolumeSnapshot> value) {
        families.gauge(name, help, perVolume(volumes, value));
    }

    private void nbd(NbdSnapshot nbd) {
        gauge("blockcache_nbd_connections", "NBD connections being served.", nbd.connectionsOpen());
        counter("blockcache_nbd_connections_accepted_total", "NBD connections accepted.", nbd.connectionsAccepted());
        families.counter("blockcache_nbd_connections_refused_total", "NBD connections closed at accept by a limit.",
                List.of(Sample.of(nbd.refusedConnectionsMax(), "limit", "total"),
                        Sample.of(nbd.refusedAddressMax(), "limit", "address")));
        families.counter("blockcache_nbd_timeouts_total", "NBD connections closed by a timeout.", List.of(
                Sample.of(nbd.handshakeTimeouts(), "timeout", "handshake"),
                Sample.of(nbd.idleTimeouts(), "timeout", "idle"),
                Sample.of(nbd.replyStallTimeouts(), "timeout", "reply_stall")));
        counter("blockcache_nbd_protocol_errors_total", "NBD connections closed for breaking the protocol.",
                nbd.protocolErrors());
        gauge("blockcache_nbd_requests_in_flight", "NBD requests received and not yet answered.",
                nbd.requestsInFlight());
        gauge("blockcache_nbd_buffer_max_bytes", "The NBD buffer budget.", nbd.bufferBytesMax());
        gauge("blockcache_nbd_buffer_bytes", "NBD buffer bytes held by requests.", nbd.bufferBytesInUse());
        gauge("blockcache_nbd_buffer_peak_bytes", "The most NBD buffer bytes held at once.",
                nbd.bufferBytesInUsePeak());
        counter("blockcache_nbd_buffer_waits_total", "NBD requests that waited for buffer budget.", nbd.bufferWaits());
        counter("blockcache_nbd_allocation_failures_total",
                "NBD requests answered ENOMEM because a buffer could not be allocated.", nbd.allocationFailures());
        counter("blockcache_nbd_connections_out_of_memory_total", "NBD connections ended by an out-of-memory error.",
                nbd.connectionsOutOfMemory());
        families.counter("blockcache_nbd_tls_handshakes_total", "NBD TLS handshakes, by result.", List.of(
                Sample.of(nbd.tlsHandshakes(), "result", "ok"),
                Sample.of(nbd.tlsHandshakeFailures(), "result", "failed")));
        families.counter("blockcache_nbd_tls_refusals_total", "NBD connections refused over TLS policy.", List.of(
                Sample.of(nbd.tlsRequiredRefusals(), "reason", "tls_required"),
                Sample.of(nbd.tlsOffRefusals(), "reason", "tls_off")));
        families.counter("blockcache_nbd_export_refusals_total", "Exports refused to an NBD client by their"
                + " allow-lists (once per export and connection), by reason.", List.of(
                Sample.of(nbd.exportRefusalsAddress(), "reason", "address"),
                Sample.of(nbd.exportRefusalsPskUser(), "reason", "psk_user")));
    }

    private void wbCounter(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String help,
                           ToDoubleFunction<WritebackSnapshot> value) {
        volumeCounter(volumes, name, help, volume -> value.applyAsDouble(volume.writeback()));
    }

    private void wbGauge(List<StatsSnapshot.VolumeSnapshot> volumes, String name, String help,
                         ToDoubleFunction<WritebackSnapshot> value) {
        volumeGauge(volumes, name, help, volume -> value.applyAsDouble(volume.writeback()));
    }

    private static List<Sample> perVolume(List<StatsSnapshot.VolumeSnapshot> volumes,
                                          ToDoubleFunction<StatsSnapshot.VolumeSnapshot> value) {
        List<Sample> samples = new ArrayList<>(volumes.size());
        for (StatsSnapshot.VolumeSnapshot volume : volumes) {
            samples.add(new Sample(volumeLabels(volume.name()), value.applyAsDouble(volume)));
        }
        return samples;
    }

    private static Labels volumeLabels(String volume) {
        return Labels.of("volume", volume);
    }

    private void counter(String name, String help, double value) {
        families.counter(name, help, List.of(Sample.of(value)));
    }

    private void gauge(String name, String help, double value) {
        families.gauge(name, help, List.of(Sample.of(value)));
    }
}

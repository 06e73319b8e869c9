package io.blockcache.admin;

import static io.blockcache.admin.MetricDescriptor.counter;
import static io.blockcache.admin.MetricDescriptor.gauge;
import static io.blockcache.admin.MetricScope.CACHE;
import static io.blockcache.admin.MetricScope.CACHE_DEVICE;
import static io.blockcache.admin.MetricScope.FILE;
import static io.blockcache.admin.MetricScope.GC;
import static io.blockcache.admin.MetricUnit.BOOLEAN;
import static io.blockcache.admin.MetricUnit.BYTES;
import static io.blockcache.admin.MetricUnit.COUNT;
import static io.blockcache.admin.MetricUnit.MILLISECONDS;
import static io.blockcache.admin.MetricUnit.NANOSECONDS;
import static io.blockcache.admin.MetricUnit.PERCENT;
import static io.blockcache.admin.MetricUnit.SECONDS;
import static io.blockcache.admin.MetricUnit.SECTORS;

import io.blockcache.admin.MetricDescriptor.JsonForm;
import io.blockcache.admin.MetricDescriptor.OldName;
import io.blockcache.admin.StatsSnapshot.CacheSnapshot;
import io.blockcache.admin.StatsSnapshot.DeviceSnapshot;
import io.blockcache.device.FileSpace;
import java.util.List;

/**
 * The metrics of the cache device, its journal, its garbage collection and the local files (docs/OPERATIONS.md §7
 * "Cache device and journal", "GC"). GC's durations were one gauge with a {@code stat} label until 2026-12-07; that
 * name stays one release as a deprecated series.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class CacheMetrics {
    public static final MetricDescriptor<CacheSnapshot> DEVICE_CHANGED = gauge(CACHE,
            "blockcache_cache_device_changed", BOOLEAN, "1 once the cache file changed under the cache (deleted,"
                    + " replaced, truncated): drain every volume before stopping; /api/stats says why.")
            .json("device.changed", c -> c.device().changed() != null ? 1 : 0).jsonDerived();
    public static final MetricDescriptor<CacheSnapshot> BUCKETS = gauge(CACHE, "blockcache_buckets", COUNT,
            "Buckets of the cache device by state.")
            .label("state")
            .series("free", "buckets.free", CacheSnapshot::bucketsFree)
            .series("open", "buckets.open", CacheSnapshot::bucketsOpen)
            .series("sealed", "buckets.sealed", CacheSnapshot::bucketsSealed)
            .series("reuse_pending", "buckets.reusePending", CacheSnapshot::bucketsReusePending)
            .series("journal", "buckets.journal", CacheSnapshot::bucketsJournal)
            .series("metadata", "buckets.metadata", CacheSnapshot::bucketsMetadata);
    public static final MetricDescriptor<CacheSnapshot> CHECKPOINT_RESERVE = gauge(CACHE,
            "blockcache_checkpoint_reserve_buckets", COUNT, "Free buckets kept for checkpoints, which data writes wait"
                    + " rather than take; grows with the extents in the index (many small extents need more).")
            .json("buckets.checkpointReserve", CacheSnapshot::bucketsCheckpointReserve);
    public static final MetricDescriptor<CacheSnapshot> BUCKET_SIZE = gauge(CACHE, "blockcache_bucket_size_bytes",
            BYTES, "Size of one bucket.")
            .json("bucketSizeBytes", CacheSnapshot::bucketSizeBytes);
    public static final MetricDescriptor<CacheSnapshot> OCCUPANCY = gauge(CACHE, "blockcache_cache_occupancy_ratio",
            PERCENT, "Buckets in use over buckets outside the journal ring, in [0, 1].")
            .json("occupancyPercent", CacheSnapshot::occupancyPercent).jsonAs(PERCENT, JsonForm.NUMBER);
    public static final MetricDescriptor<CacheSnapshot> JOURNAL_SEQUENCE = gauge(CACHE,
            "blockcache_journal_durable_sequence", COUNT, "Sequence of the newest durable journal entry.")
            .json("journal.durableSequence", CacheSnapshot::journalDurableSequence);
    public static final MetricDescriptor<CacheSnapshot> JOURNAL_ENTRIES = counter(CACHE,
            "blockcache_journal_entries_written_total", COUNT, "Journal entries written since open.")
            .json("journal.entriesWritten", CacheSnapshot::journalEntriesWritten);
    public static final MetricDescriptor<CacheSnapshot> JOURNAL_BYTES = counter(CACHE,
            "blockcache_journal_written_bytes_total", BYTES, "Bytes of journal entries written since open.")
            .json("journal.bytesWritten", CacheSnapshot::journalBytesWritten);
    public static final MetricDescriptor<CacheSnapshot> JOURNAL_RING_IN_USE = gauge(CACHE,
            "blockcache_journal_ring_buckets_in_use", COUNT, "Journal ring buckets that replay still needs.")
            .json("journal.ringBucketsInUse", CacheSnapshot::journalRingBucketsInUse);
    public static final MetricDescriptor<CacheSnapshot> CHECKPOINTS = counter(CACHE,
            "blockcache_checkpoints_written_total", COUNT, "Checkpoints written since open.")
            .json("checkpointsWritten", CacheSnapshot::checkpointsWritten);
    public static final MetricDescriptor<CacheSnapshot> CLEAN_COVER_ROUNDS = counter(CACHE,
            "blockcache_clean_cover_rounds_total", COUNT, "Covering rounds since open (one a second): each ends with"
                    + " every clean copy filled before it began recorded as covered, kept across an unclean stop"
                    + " (docs/FORMAT.md §7 rule 10); a round with new copies flushes the backing devices first.")
            .json("cleanCoverRounds", CacheSnapshot::cleanCoverRounds);
    public static final MetricDescriptor<DeviceSnapshot> DEVICE_REQUESTS_IN_FLIGHT = gauge(CACHE_DEVICE,
            "blockcache_cache_device_requests_in_flight", COUNT,
            "Requests submitted to the cache device and not yet completed (its queue depth).")
            .json("requestsInFlight", DeviceSnapshot::requestsInFlight);
    public static final MetricDescriptor<DeviceSnapshot> DEVICE_COMPLETED = counter(CACHE_DEVICE,
            "blockcache_cache_device_completed_bytes_total", SECTORS, "Bytes the cache device completed, by operation.")
            .label("op")
            .series("read", "completedReadSectors", DeviceSnapshot::completedReadSectors)
            .series("write", "completedWriteSectors", DeviceSnapshot::completedWriteSectors);
    public static final MetricDescriptor<DeviceSnapshot> DEVICE_ERRORS = counter(CACHE_DEVICE,
            "blockcache_cache_device_errors_total", COUNT, "Cache-device requests that failed.")
            .json("errors", DeviceSnapshot::errors);

    public static final MetricDescriptor<GcSnapshot> GC_RUNNING = gauge(GC, "blockcache_gc_running", BOOLEAN,
            "1 while a GC run is in progress.")
            .json("running", gc -> gc.running() ? 1 : 0);
    public static final MetricDescriptor<GcSnapshot> GC_RUNS = counter(GC, "blockcache_gc_runs_total", COUNT,
            "Completed GC runs.")
            .json("runs", GcSnapshot::runs);
    public static final MetricDescriptor<GcSnapshot> GC_DURATION_AVERAGE = gauge(GC,
            "blockcache_gc_duration_average_seconds", NANOSECONDS, "EWMA average GC run duration.")
            .json("averageDurationMs", GcSnapshot::durationNsAverage).jsonAs(MILLISECONDS, JsonForm.NUMBER)
            .deprecated(new OldName("blockcache_gc_duration_seconds", SECONDS, "stat", "average"));
    public static final MetricDescriptor<GcSnapshot> GC_DURATION_MAX = gauge(GC, "blockcache_gc_duration_max_seconds",
            NANOSECONDS, "Longest GC run.")
            .json("maxDurationMs", GcSnapshot::durationNsMax).jsonAs(MILLISECONDS, JsonForm.NUMBER)
            .deprecated(new OldName("blockcache_gc_duration_seconds", SECONDS, "stat", "max"));
    public static final MetricDescriptor<GcSnapshot> GC_INTERVAL = gauge(GC, "blockcache_gc_interval_average_seconds",
            NANOSECONDS, "EWMA average time between GC run starts.")
            .json("averageIntervalMs", GcSnapshot::intervalNsAverage).jsonAs(MILLISECONDS, JsonForm.NUMBER);
    public static final MetricDescriptor<GcSnapshot> GC_SINCE_LAST = gauge(GC, "blockcache_gc_since_last_seconds",
            NANOSECONDS, "Time since the last GC run ended (absent before one).")
            .json("sinceLastMs", GcSnapshot::sinceLastNs).jsonAs(MILLISECONDS, JsonForm.DERIVED)
            .only(gc -> gc.sinceLastNs() >= 0);
    public static final MetricDescriptor<GcSnapshot> GC_BUCKETS = gauge(GC, "blockcache_gc_buckets", COUNT,
            "Buckets as GC classifies them.")
            .label("state")
            .series("free", "buckets.free", gc -> gc.buckets().free())
            .series("reuse_pending", "buckets.reusePending", gc -> gc.buckets().reusePending())
            .series("open", "buckets.open", gc -> gc.buckets().open())
            .series("clean", "buckets.clean", gc -> gc.buckets().clean())
            .series("dirty", "buckets.dirty", gc -> gc.buckets().dirty())
            .series("empty_waiting", "buckets.emptyWaiting", gc -> gc.buckets().emptyWaiting())
            .series("metadata", "buckets.metadata", gc -> gc.buckets().metadata())
            .series("journal", "buckets.journal", gc -> gc.buckets().journal());
    public static final MetricDescriptor<GcSnapshot> GC_EVICTIONS = counter(GC, "blockcache_gc_evictions_total",
            COUNT, "Clean buckets evicted by GC.")
            .json("bucketsEvicted", GcSnapshot::bucketsEvicted);
    public static final MetricDescriptor<GcSnapshot> GC_MOVED = counter(GC, "blockcache_gc_moved_bytes_total", BYTES,
            "Bytes moving GC copied.")
            .json("movedBytes", GcSnapshot::movedBytes);
    public static final MetricDescriptor<GcSnapshot> GC_COMPACTED = counter(GC, "blockcache_gc_compacted_buckets_total",
            COUNT, "Dirty buckets chosen for compaction.")
            .json("compactedBuckets", GcSnapshot::compactedBuckets);
    public static final MetricDescriptor<GcSnapshot> GC_STALE_KEYS = counter(GC,
            "blockcache_gc_stale_keys_dropped_total", COUNT, "Stale keys GC marks dropped.")
            .json("staleKeysDropped", GcSnapshot::staleKeysDropped);
    public static final MetricDescriptor<GcSnapshot> GC_MOVE_CHECKSUM_FAILURES = counter(GC,
            "blockcache_gc_move_checksum_failures_total", COUNT,
            "Pieces moving GC left in place because their data failed its CRC32C.")
            .json("moveChecksumFailures", GcSnapshot::moveChecksumFailures);
    public static final MetricDescriptor<GcSnapshot> GC_ALLOCATION_WAITS = counter(GC,
            "blockcache_gc_allocation_waits_total", COUNT,
            "Data allocations refused; each sent a write or fill around the cache.")
            .json("allocationWaits", GcSnapshot::allocationWaits);
    public static final MetricDescriptor<GcSnapshot> GC_SLICE_DURATION = MetricDescriptor.histogram(GC,
            "blockcache_gc_slice_duration_seconds",
            "How long each GC mark slice held the loop (front-end requests wait meanwhile).",
            (gc, label) -> gc.sliceDurations())
            .json("markSlices", gc -> gc.sliceDurations().count());

    public static final MetricDescriptor<FileSpace> FILE_SPARSE_BEYOND_FREE = gauge(FILE,
            "blockcache_file_sparse_beyond_free_bytes", BYTES, "Bytes of a sparse cache or backing file not yet"
                    + " allocated beyond the free space of its file system: writes there would fail with ENOSPC."
                    + " -1: unknown.")
            .json("sparseBeyondFreeBytes", FileSpace::sparseBeyondFreeBytes);

    /** The cache device's, in the order {@code /metrics} lists them. */
    static final List<MetricDescriptor<?>> CACHE_ALL = List.of(DEVICE_CHANGED, BUCKETS, CHECKPOINT_RESERVE,
            BUCKET_SIZE, OCCUPANCY, JOURNAL_SEQUENCE, JOURNAL_ENTRIES, JOURNAL_BYTES, JOURNAL_RING_IN_USE, CHECKPOINTS,
            CLEAN_COVER_ROUNDS, DEVICE_REQUESTS_IN_FLIGHT, DEVICE_COMPLETED, DEVICE_ERRORS);
    /** The cache device's counters, in the order {@code /api/stats} writes them (as a backing device's). */
    static final List<MetricDescriptor<?>> DEVICE_ALL = List.of(DEVICE_REQUESTS_IN_FLIGHT, DEVICE_COMPLETED,
            DEVICE_ERRORS);
    /** GC's, in the order {@code /metrics} lists them. */
    static final List<MetricDescriptor<?>> GC_ALL = List.of(GC_RUNNING, GC_RUNS, GC_DURATION_AVERAGE,
            GC_DURATION_MAX, GC_INTERVAL, GC_SINCE_LAST, GC_BUCKETS, GC_EVICTIONS, GC_MOVED, GC_COMPACTED,
            GC_STALE_KEYS, GC_MOVE_CHECKSUM_FAILURES, GC_ALLOCATION_WAITS, GC_SLICE_DURATION);

    private CacheMetrics() {
    }
}

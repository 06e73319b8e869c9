package io.blockcache.cli;

import io.blockcache.admin.BackingMetrics;
import io.blockcache.admin.CacheMetrics;
import io.blockcache.admin.MetricDescriptor;
import io.blockcache.admin.MetricUnit;
import io.blockcache.admin.ServerMetrics;
import io.blockcache.admin.VolumeMetrics;
import io.blockcache.admin.WritebackMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Formats the JSON of {@code /api/stats} as aligned text tables for {@code blockcache stats}. A metric's number is
 * read through its descriptor ({@code admin.MetricDescriptor}: its key, and its unit converted to bytes where the
 * table shows sizes), so no key of a metric is spelled here; the texts and the numbers that are not metrics (names,
 * states, the drain) are read by their keys. Pure.
 */
final class StatsTable {
    private StatsTable() {
    }

    /** The tables, with a trailing newline. */
    static String format(Map<?, ?> stats) {
        StringBuilder out = new StringBuilder();
        List<List<String>> volumes = new ArrayList<>();
        volumes.add(List.of("VOLUME", "MODE", "SIZE", "HIT RATIO", "DIRTY", "CACHED", "BYPASSED", "IN FLIGHT",
                "P50 µs", "P99 µs", "P99.9 µs"));
        for (Object item : (List<?>) stats.get("volumes")) {
            Map<?, ?> v = (Map<?, ?>) item;
            volumes.add(List.of(text(v.get("name")), text(v.get("mode")), bytes(VolumeMetrics.SIZE, v),
                    percent(VolumeMetrics.HIT_RATIO.baseValueIn(v) * 100), bytes(VolumeMetrics.DIRTY, v),
                    bytes(VolumeMetrics.CACHED, v), bytes(VolumeMetrics.BYPASSED, v),
                    integer(VolumeMetrics.REQUESTS_IN_FLIGHT, v), integer(VolumeMetrics.LATENCY, v, "0.5"),
                    integer(VolumeMetrics.LATENCY, v, "0.99"), integer(VolumeMetrics.LATENCY, v, "0.999")));
        }
        table(out, volumes);
        for (Object item : (List<?>) stats.get("volumes")) {
            Map<?, ?> v = (Map<?, ?>) item;
            if (v.get("admission") != null) { // read admission (docs/CACHING.md)
                out.append(String.format(Locale.ROOT, "admission %s: %s admitted, %s rejected, %s promoted; %s of "
                        + "state%n", text(v.get("name")), bytes(VolumeMetrics.ADMITTED, v),
                        bytes(VolumeMetrics.REJECTED, v), bytes(VolumeMetrics.PROMOTED, v),
                        bytes(VolumeMetrics.ADMISSION_MEMORY, v)));
            }
        }
        Map<?, ?> cache = (Map<?, ?>) stats.get("cache");
        MetricDescriptor<?> buckets = CacheMetrics.BUCKETS;
        out.append('\n').append(String.format(Locale.ROOT, "cache: %s buckets of %s, occupancy %s: %s free, %s open, "
                        + "%s sealed, %s reuse-pending, %s journal, %s metadata%n",
                integer(((Map<?, ?>) cache.get("buckets")).get("total")), bytes(CacheMetrics.BUCKET_SIZE, cache),
                percent(CacheMetrics.OCCUPANCY.baseValueIn(cache) * 100), integer(buckets, cache, "free"),
                integer(buckets, cache, "open"), integer(buckets, cache, "sealed"),
                integer(buckets, cache, "reuse_pending"), integer(buckets, cache, "journal"),
                integer(buckets, cache, "metadata")));
        out.append(String.format(Locale.ROOT, "journal: durable sequence %s, %s entries (%s) written, %s ring buckets "
                        + "in use; %s checkpoints%n", integer(CacheMetrics.JOURNAL_SEQUENCE, cache),
                integer(CacheMetrics.JOURNAL_ENTRIES, cache), bytes(CacheMetrics.JOURNAL_BYTES, cache),
                integer(CacheMetrics.JOURNAL_RING_IN_USE, cache), integer(CacheMetrics.CHECKPOINTS, cache)));
        out.append('\n');
        List<List<String>> devices = new ArrayList<>();
        devices.add(List.of("DEVICE", "QUEUE DEPTH", "READ", "WRITTEN", "ERRORS"));
        devices.add(device((Map<?, ?>) cache.get("device"), CacheMetrics.DEVICE_REQUESTS_IN_FLIGHT,
                CacheMetrics.DEVICE_COMPLETED, CacheMetrics.DEVICE_ERRORS));
        for (Object item : (List<?>) stats.get("backing")) {
            devices.add(device((Map<?, ?>) item, BackingMetrics.REQUESTS_IN_FLIGHT, BackingMetrics.COMPLETED,
                    BackingMetrics.ERRORS));
        }
        table(out, devices);
        for (Object item : (List<?>) stats.get("backing")) {
            remoteBacking(out, (Map<?, ?>) item);
        }
        out.append('\n');
        for (Object item : (List<?>) stats.get("volumes")) {
            Map<?, ?> v = (Map<?, ?>) item;
            writeback(out, text(v.get("name")), (Map<?, ?>) v.get("writeback"));
        }
        gc(out, (Map<?, ?>) stats.get("gc"));
        if (stats.get("nbd") instanceof Map<?, ?> nbd) {
            nbd(out, nbd);
        }
        if (stats.get("files") instanceof List<?> files) {
            for (Object item : files) {
                Map<?, ?> f = (Map<?, ?>) item;
                out.append(String.format(Locale.ROOT, "file %s: %s, %s allocated, %s free on its file system%s%n",
                        text(f.get("file")), bytes(f.get("sizeBytes")), bytes(f.get("allocatedBytes")),
                        bytes(f.get("fileSystemFreeBytes")), CacheMetrics.FILE_SPARSE_BEYOND_FREE.baseValueIn(f) > 0
                                ? "; " + bytes(CacheMetrics.FILE_SPARSE_BEYOND_FREE, f)
                                + " of holes beyond it (disk full ahead)" : ""));
            }
        }
        if (stats.get("admin") instanceof Map<?, ?> admin) {
            out.append(String.format(Locale.ROOT, "admin: token %s; %s requests refused (401); refused %s by the"
                            + " address limit (429), %s by the total; %s timeouts%n",
                    Boolean.TRUE.equals(admin.get("tokenRequired")) ? "required" : "not required",
                    integer(ServerMetrics.UNAUTHORIZED, admin), integer(ServerMetrics.ADMIN_REFUSED, admin, "address"),
                    integer(ServerMetrics.ADMIN_REFUSED, admin, "total"),
                    integer(ServerMetrics.ADMIN_TIMEOUTS, admin)));
        }
        return out.toString();
    }

    /** One line per remote backing: the NBD client's connection, or the S3 device's requests and ownership. */
    static void remoteBacking(StringBuilder out, Map<?, ?> device) {
        String name = text(device.get("name"));
        if (device.get("remote") instanceof Map<?, ?> nbd) {
            out.append(String.format(Locale.ROOT, "backing %s (nbd): %s; %s breaks, %s reconnects, %s request"
                            + " timeouts; replay log %s%n", name, text(nbd.get("state")),
                    integer(BackingMetrics.REMOTE_BREAKS, nbd), integer(BackingMetrics.REMOTE_RECONNECTS, nbd),
                    integer(BackingMetrics.REMOTE_REQUEST_TIMEOUTS, nbd),
                    bytes(BackingMetrics.REMOTE_REPLAY_LOG, nbd)));
        }
        if (device.get("s3") instanceof Map<?, ?> s3) {
            out.append(String.format(Locale.ROOT, "backing %s (s3): %s; %s PUTs (%s), %s GETs (%s), %s DELETEs, %s"
                            + " retried, %s failed; %s of %s chunks staged; owner record renewed %s times, %s failed%n",
                    name, text(s3.get("ownership")), integer(BackingMetrics.S3_REQUESTS, s3, "put"),
                    bytes(BackingMetrics.S3_PUT_BYTES, s3), integer(BackingMetrics.S3_REQUESTS, s3, "get"),
                    bytes(BackingMetrics.S3_GET_BYTES, s3), integer(BackingMetrics.S3_REQUESTS, s3, "delete"),
                    integer(BackingMetrics.S3_RETRIES, s3), integer(BackingMetrics.S3_FAILURES, s3),
                    integer(BackingMetrics.S3_STAGED, s3), integer(s3.get("stagedChunksMax")),
                    integer(BackingMetrics.S3_LEASE_RENEWALS, s3),
                    integer(BackingMetrics.S3_LEASE_RENEWAL_FAILURES, s3)));
        }
    }

    /**
     * One line: connections, what the limits refused or cut off, the buffer budget, and TLS handshakes and refusals
     * (docs/OPERATIONS.md).
     */
    private static void nbd(StringBuilder out, Map<?, ?> n) {
        out.append(String.format(Locale.ROOT, "nbd: %s connections (%s accepted; refused %s by the total, %s by the"
                        + " address limit); timeouts %s handshake, %s idle, %s reply; %s protocol errors; buffers %s of"
                        + " %s (peak %s), %s waits, %s allocation failures; TLS %s handshakes, %s failed, %s refused"
                        + " for want of TLS, %s asked for TLS while off; exports refused %s by address, %s by PSK"
                        + " user%n",
                integer(ServerMetrics.CONNECTIONS, n), integer(ServerMetrics.ACCEPTED, n),
                integer(ServerMetrics.REFUSED, n, "total"), integer(ServerMetrics.REFUSED, n, "address"),
                integer(ServerMetrics.TIMEOUTS, n, "handshake"), integer(ServerMetrics.TIMEOUTS, n, "idle"),
                integer(ServerMetrics.TIMEOUTS, n, "reply_stall"), integer(ServerMetrics.PROTOCOL_ERRORS, n),
                bytes(ServerMetrics.BUFFER, n), bytes(ServerMetrics.BUFFER_MAX, n), bytes(ServerMetrics.BUFFER_PEAK, n),
                integer(ServerMetrics.BUFFER_WAITS, n), integer(ServerMetrics.ALLOCATION_FAILURES, n),
                integer(ServerMetrics.TLS_HANDSHAKES, n, "ok"), integer(ServerMetrics.TLS_HANDSHAKES, n, "failed"),
                integer(ServerMetrics.TLS_REFUSALS, n, "tls_required"),
                integer(ServerMetrics.TLS_REFUSALS, n, "tls_off"),
                integer(ServerMetrics.EXPORT_REFUSALS, n, "address"),
                integer(ServerMetrics.EXPORT_REFUSALS, n, "psk_user")));
    }

    /** Two or three lines per volume: state and progress; every PI term (as writeback_rate_debug); a drain. */
    private static void writeback(StringBuilder out, String volume, Map<?, ?> w) {
        Map<?, ?> rate = (Map<?, ?>) w.get("rate");
        Map<?, ?> errors = (Map<?, ?>) w.get("errors");
        out.append(String.format(Locale.ROOT, "writeback %s: %s, %s/%s, front end %s; dirty %s, written back %s in %s "
                        + "passes; keys in flight %s; backing queue %s, measured %s/s; errors %s%n", volume,
                Boolean.TRUE.equals(w.get("running")) ? "running" : "paused", text(w.get("policy")),
                text(w.get("order")), text(w.get("state")), bytes(w.get("dirtyBytes")),
                bytes(WritebackMetrics.WRITTEN, w), integer(WritebackMetrics.PASSES, w),
                integer(WritebackMetrics.KEYS_IN_FLIGHT, w), integer(w.get("backingQueueDepth")),
                bytes(WritebackMetrics.MEASURED_BANDWIDTH, w), integer(errors.get("total"))));
        Map<?, ?> epochs = (Map<?, ?>) w.get("epochs");
        if (epochs != null && "epochs".equals(epochs.get("ordering"))) {
            out.append(String.format(Locale.ROOT, "  ordering epochs: current %s, oldest dirty %s (%s epochs dirty), "
                            + "%s requests waiting for older epochs (%s so far)%n", integer(epochs.get("current")),
                    epochs.get("oldestDirty") == null ? "none" : integer(epochs.get("oldestDirty")),
                    integer(WritebackMetrics.DIRTY_EPOCHS, w), integer(epochs.get("requestsWaiting")),
                    integer(WritebackMetrics.EPOCH_WAITS, w)));
        }
        if (w.get("degraded") != null) {
            out.append("  DEGRADED: ").append(text(w.get("degraded")))
                    .append(" (writeback held until a restart; docs/OPERATIONS.md \"A device vanished\")\n");
        }
        if (errors.get("backingFailure") != null) {
            out.append("  BACKING DEVICE FAILED: ").append(text(errors.get("backingFailure")))
                    .append(" (no FLUSH can succeed and dirty data stays cached until a restart)\n");
        } else if (errors.get("last") != null) {
            out.append("  last writeback error: ").append(text(errors.get("last"))).append('\n');
        }
        out.append(String.format(Locale.ROOT, "  rate %s sectors/s (%s/s, when busy): target %s sectors, error %s, "
                        + "P %s, I %s, change %s, fragment boost %s%s%n", integer(WritebackMetrics.RATE, w),
                bytes(WritebackMetrics.RATE, w), integer(WritebackMetrics.RATE_TARGET, w),
                integer(WritebackMetrics.RATE_ERROR, w), integer(WritebackMetrics.RATE_PROPORTIONAL, w),
                integer(WritebackMetrics.RATE_INTEGRAL, w), integer(WritebackMetrics.RATE_CHANGE, w),
                integer(WritebackMetrics.RATE_FRAGMENT_BOOST, w),
                Boolean.TRUE.equals(rate.get("integralFrozen")) ? ", integral frozen" : ""));
        Map<?, ?> drain = (Map<?, ?>) w.get("drain");
        if (number(drain.get("id")) > 0) {
            boolean active = "running".equals(drain.get("state")) || "paused".equals(drain.get("state"));
            out.append(String.format(Locale.ROOT, "  drain #%s %s: %s%s%n", integer(drain.get("id")),
                    text(drain.get("state")), active ? DrainDisplay.details(drain) : bytes(drain.get("dirtyBytesLeft"))
                            + " left, " + bytes(drain.get("writtenBackBytes")) + " written back",
                    drain.get("error") == null ? "" : ": " + drain.get("error")));
        }
    }

    /** The cache's GC: activity and timing, buckets as GC classifies them, what it reclaimed. */
    private static void gc(StringBuilder out, Map<?, ?> gc) {
        MetricDescriptor<?> b = CacheMetrics.GC_BUCKETS;
        Object since = CacheMetrics.GC_SINCE_LAST.jsonValueIn(gc, null);
        out.append(String.format(Locale.ROOT, "gc: %s, %s runs, duration avg %s max %s, interval avg %s, last %s; "
                        + "buckets %s free, %s open, %s clean, %s dirty, %s empty, %s reuse-pending, %s metadata, "
                        + "%s journal; %s evicted, %s moved, %s allocation waits%n",
                Boolean.TRUE.equals(CacheMetrics.GC_RUNNING.jsonValueIn(gc, null)) ? "running" : "idle",
                integer(CacheMetrics.GC_RUNS, gc),
                millis(CacheMetrics.GC_DURATION_AVERAGE, gc), millis(CacheMetrics.GC_DURATION_MAX, gc),
                millis(CacheMetrics.GC_INTERVAL, gc), since == null ? "never" : millis(CacheMetrics.GC_SINCE_LAST, gc)
                + " ago", integer(b, gc, "free"), integer(b, gc, "open"), integer(b, gc, "clean"),
                integer(b, gc, "dirty"), integer(b, gc, "empty_waiting"), integer(b, gc, "reuse_pending"),
                integer(b, gc, "metadata"), integer(b, gc, "journal"), integer(CacheMetrics.GC_EVICTIONS, gc),
                bytes(CacheMetrics.GC_MOVED, gc), integer(CacheMetrics.GC_ALLOCATION_WAITS, gc)));
    }

    /** A duration metric: milliseconds below ten seconds, seconds above. */
    private static String millis(MetricDescriptor<?> metric, Map<?, ?> object) {
        double ms = metric.jsonUnit().convert(number(metric.jsonValueIn(object, null)), MetricUnit.MILLISECONDS);
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms < 10_000 ? String.format(Locale.ROOT, "%.1f ms", ms)
                : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }

    /** A device's row: its name, then its queue depth, bytes completed by {@code op} and errors. */
    private static List<String> device(Map<?, ?> device, MetricDescriptor<?> inFlight, MetricDescriptor<?> completed,
                                       MetricDescriptor<?> errors) {
        return List.of(text(device.get("name")), integer(inFlight, device),
                bytes(completed.baseValueIn(device, "read")), bytes(completed.baseValueIn(device, "write")),
                integer(errors, device));
    }

    /** Appends {@code rows} as an aligned table: names left, numbers right. */
    static void table(StringBuilder out, List<List<String>> rows) {
        int[] widths = new int[rows.get(0).size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                // First column left-aligned (names), numbers right-aligned.
                String cell = i == 0 ? String.format(Locale.ROOT, "%-" + widths[i] + "s", row.get(i))
                        : String.format(Locale.ROOT, "%" + widths[i] + "s", row.get(i));
                line.append(i == 0 ? "" : "  ").append(cell);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }

    private static String text(Object value) {
        return String.valueOf(value);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** A JSON number as a whole number's text. */
    static String integerText(Object value) {
        return integer(value);
    }

    /** A metric's number as it is in the JSON (its series labelled {@code label}; null: its only one), whole. */
    private static String integer(MetricDescriptor<?> metric, Map<?, ?> object, String label) {
        return integer(metric.jsonValueIn(object, label));
    }

    private static String integer(MetricDescriptor<?> metric, Map<?, ?> object) {
        return integer(metric, object, null);
    }

    /** A metric in bytes (or bytes per second), from whatever unit its JSON key has. */
    private static String bytes(MetricDescriptor<?> metric, Map<?, ?> object) {
        return bytes(metric.baseValueIn(object));
    }

    private static String integer(Object value) {
        double number = number(value);
        return Double.isNaN(number) ? "-" : Long.toString(Math.round(number));
    }

    private static String percent(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f %%", value);
    }

    private static String bytes(Object value) {
        return bytes(number(value));
    }

    /** Binary units, one decimal: what people compare with {@code ls -lh} and {@code lsblk}. */
    static String bytes(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? String.format(Locale.ROOT, "%.0f B", value)
                : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}

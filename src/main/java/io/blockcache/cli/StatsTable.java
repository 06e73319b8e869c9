package io.blockcache.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Formats the JSON of {@code /api/stats} as aligned text tables for {@code blockcache stats}. Pure. */
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
            Map<?, ?> latency = (Map<?, ?>) v.get("latency");
            volumes.add(List.of(text(v.get("name")), text(v.get("mode")), bytes(v.get("sizeBytes")),
                    percent(number(v.get("hitRatio")) * 100), bytes(v.get("dirtyBytes")), bytes(v.get("cachedBytes")),
                    bytes(number(v.get("bypassedSectors")) * 512), integer(v.get("requestsInFlight")),
                    integer(latency.get("p50Us")), integer(latency.get("p99Us")), integer(latency.get("p999Us"))));
        }
        table(out, volumes);
        Map<?, ?> cache = (Map<?, ?>) stats.get("cache");
        Map<?, ?> buckets = (Map<?, ?>) cache.get("buckets");
        Map<?, ?> journal = (Map<?, ?>) cache.get("journal");
        out.append('\n').append(String.format(Locale.ROOT, "cache: %s buckets of %s, occupancy %s: %s free, %s open, "
                        + "%s sealed, %s reuse-pending, %s journal, %s metadata%n", integer(buckets.get("total")),
                bytes(cache.get("bucketSizeBytes")), percent(number(cache.get("occupancyPercent"))),
                integer(buckets.get("free")), integer(buckets.get("open")), integer(buckets.get("sealed")),
                integer(buckets.get("reusePending")), integer(buckets.get("journal")),
                integer(buckets.get("metadata"))));
        out.append(String.format(Locale.ROOT, "journal: durable sequence %s, %s entries (%s) written, %s ring buckets "
                        + "in use; %s checkpoints%n", integer(journal.get("durableSequence")),
                integer(journal.get("entriesWritten")), bytes(journal.get("bytesWritten")),
                integer(journal.get("ringBucketsInUse")), integer(cache.get("checkpointsWritten"))));
        out.append('\n');
        List<List<String>> devices = new ArrayList<>();
        devices.add(List.of("DEVICE", "QUEUE DEPTH", "READ", "WRITTEN", "ERRORS"));
        devices.add(device((Map<?, ?>) cache.get("device")));
        for (Object item : (List<?>) stats.get("backing")) {
            devices.add(device((Map<?, ?>) item));
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
                        bytes(f.get("fileSystemFreeBytes")), number(f.get("sparseBeyondFreeBytes")) > 0
                                ? "; " + bytes(f.get("sparseBeyondFreeBytes")) + " of holes beyond it (disk full ahead)"
                                : ""));
            }
        }
        if (stats.get("admin") instanceof Map<?, ?> admin) {
            out.append(String.format(Locale.ROOT, "admin: token %s; %s requests refused (401); refused %s by the"
                            + " address limit (429), %s by the total; %s timeouts%n",
                    Boolean.TRUE.equals(admin.get("tokenRequired")) ? "required" : "not required",
                    integer(admin.get("unauthorizedRequests")), integer(admin.get("refusedAddressMax")),
                    integer(admin.get("refusedRequestsMax")), integer(admin.get("requestTimeouts"))));
        }
        return out.toString();
    }

    /** One line per remote backing: the NBD client's connection, or the S3 device's requests and ownership. */
    static void remoteBacking(StringBuilder out, Map<?, ?> device) {
        String name = text(device.get("name"));
        if (device.get("remote") instanceof Map<?, ?> nbd) {
            out.append(String.format(Locale.ROOT, "backing %s (nbd): %s; %s breaks, %s reconnects, %s request"
                            + " timeouts; replay log %s%n", name, text(nbd.get("state")), integer(nbd.get("breaks")),
                    integer(nbd.get("reconnects")), integer(nbd.get("requestTimeouts")),
                    bytes(nbd.get("replayLogBytes"))));
        }
        if (device.get("s3") instanceof Map<?, ?> s3) {
            out.append(String.format(Locale.ROOT, "backing %s (s3): %s; %s PUTs (%s), %s GETs (%s), %s DELETEs, %s"
                            + " retried, %s failed; %s of %s chunks staged; owner record renewed %s times, %s failed%n",
                    name, text(s3.get("ownership")), integer(s3.get("puts")), bytes(s3.get("bytesPut")),
                    integer(s3.get("gets")), bytes(s3.get("bytesGot")), integer(s3.get("deletes")),
                    integer(s3.get("retries")), integer(s3.get("failures")), integer(s3.get("stagedChunks")),
                    integer(s3.get("stagedChunksMax")),
                    integer(s3.get("leaseRenewals")), integer(s3.get("leaseRenewalFailures"))));
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
                integer(n.get("connectionsOpen")), integer(n.get("connectionsAccepted")),
                integer(n.get("refusedConnectionsMax")), integer(n.get("refusedAddressMax")),
                integer(n.get("handshakeTimeouts")), integer(n.get("idleTimeouts")),
                integer(n.get("replyStallTimeouts")), integer(n.get("protocolErrors")),
                bytes(n.get("bufferBytesInUse")), bytes(n.get("bufferBytesMax")), bytes(n.get("bufferBytesInUsePeak")),
                integer(n.get("bufferWaits")), integer(n.get("allocationFailures")), integer(n.get("tlsHandshakes")),
                integer(n.get("tlsHandshakeFailures")), integer(n.get("tlsRequiredRefusals")),
                integer(n.get("tlsOffRefusals")), integer(n.get("exportRefusalsAddress")),
                integer(n.get("exportRefusalsPskUser"))));
    }

    /** Two or three lines per volume: state and progress; every PI term (as writeback_rate_debug); a drain. */
    private static void writeback(StringBuilder out, String volume, Map<?, ?> w) {
        Map<?, ?> rate = (Map<?, ?>) w.get("rate");
        Map<?, ?> errors = (Map<?, ?>) w.get("errors");
        out.append(String.format(Locale.ROOT, "writeback %s: %s, %s/%s, front end %s; dirty %s, written back %s in %s "
                        + "passes; keys in flight %s; backing queue %s, measured %s/s; errors %s%n", volume,
                Boolean.TRUE.equals(w.get("running")) ? "running" : "paused", text(w.get("policy")),
                text(w.get("order")), text(w.get("state")), bytes(w.get("dirtyBytes")),
                bytes(number(w.get("writtenBackSectors")) * 512), integer(w.get("passes")),
                integer(w.get("keysInFlight")), integer(w.get("backingQueueDepth")),
                bytes(w.get("measuredBackingBytesPerSecond")), integer(errors.get("total"))));
        Map<?, ?> epochs = (Map<?, ?>) w.get("epochs");
        if (epochs != null && "epochs".equals(epochs.get("ordering"))) {
            out.append(String.format(Locale.ROOT, "  ordering epochs: current %s, oldest dirty %s (%s epochs dirty), "
                            + "%s requests waiting for older epochs (%s so far)%n", integer(epochs.get("current")),
                    epochs.get("oldestDirty") == null ? "none" : integer(epochs.get("oldestDirty")),
                    integer(epochs.get("dirtyEpochs")), integer(epochs.get("requestsWaiting")),
                    integer(epochs.get("waitsTotal"))));
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
                        + "P %s, I %s, change %s, fragment boost %s%s%n", integer(rate.get("rateSectorsPerSecond")),
                bytes(number(rate.get("rateSectorsPerSecond")) * 512), integer(rate.get("targetSectors")),
                integer(rate.get("errorSectors")), integer(rate.get("proportionalSectorsPerSecond")),
                integer(rate.get("integralSectorsPerSecond")), integer(rate.get("changeSectorsPerSecond")),
                integer(rate.get("fragmentBoostSectorsPerSecond")),
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
        Map<?, ?> b = (Map<?, ?>) gc.get("buckets");
        Object since = gc.get("sinceLastMs");
        out.append(String.format(Locale.ROOT, "gc: %s, %s runs, duration avg %s max %s, interval avg %s, last %s; "
                        + "buckets %s free, %s open, %s clean, %s dirty, %s empty, %s reuse-pending, %s metadata, "
                        + "%s journal; %s evicted, %s moved, %s allocation waits%n",
                Boolean.TRUE.equals(gc.get("running")) ? "running" : "idle", integer(gc.get("runs")),
                millis(gc.get("averageDurationMs")), millis(gc.get("maxDurationMs")),
                millis(gc.get("averageIntervalMs")), since == null ? "never" : millis(since) + " ago",
                integer(b.get("free")), integer(b.get("open")), integer(b.get("clean")), integer(b.get("dirty")),
                integer(b.get("emptyWaiting")), integer(b.get("reusePending")), integer(b.get("metadata")),
                integer(b.get("journal")), integer(gc.get("bucketsEvicted")), bytes(gc.get("movedBytes")),
                integer(gc.get("allocationWaits"))));
    }

    /** Milliseconds below ten seconds, seconds above. */
    private static String millis(Object value) {
        double ms = number(value);
        if (Double.isNaN(ms)) {
            return "-";
        }
        return ms < 10_000 ? String.format(Locale.ROOT, "%.1f ms", ms)
                : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }

    private static List<String> device(Map<?, ?> device) {
        return List.of(text(device.get("name")), integer(device.get("requestsInFlight")),
                bytes(number(device.get("completedReadSectors")) * 512),
                bytes(number(device.get("completedWriteSectors")) * 512), integer(device.get("errors")));
    }

    private static void table(StringBuilder out, List<List<String>> rows) {
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

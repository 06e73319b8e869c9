package io.blockcache.cli;

import io.blockcache.admin.MetricDescriptor;
import io.blockcache.admin.VolumeMetrics;
import io.blockcache.admin.WritebackMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What happened between two answers of {@code /api/stats}, per volume, for {@code blockcache stats --watch}: requests
 * and bytes per second, the hit ratio of the reads in between (not since start, which hides a cache gone cold), the
 * bytes written into the cache and around it (a write-through or write-around copy counts in both), and the writeback
 * rate. Counters are read through their descriptors ({@code admin.MetricDescriptor}), as
 * {@link StatsTable} reads them. Pure.
 */
final class StatsRates {
    private StatsRates() {
    }

    /**
     * The rates table between {@code before} and {@code now}, taken {@code seconds} apart, with a trailing newline.
     * A volume that is not in both answers (added, removed, renamed) shows dashes.
     */
    static String format(Map<?, ?> before, Map<?, ?> now, double seconds) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("VOLUME", "READS/s", "WRITES/s", "READ/s", "HIT RATIO", "CACHED/s", "AROUND/s",
                "WRITEBACK/s", "DIRTY"));
        for (Object item : (List<?>) now.get("volumes")) {
            Map<?, ?> v = (Map<?, ?>) item;
            Map<?, ?> old = volumeNamed(before, v.get("name"));
            if (old == null) {
                rows.add(List.of(String.valueOf(v.get("name")), "-", "-", "-", "-", "-", "-", "-",
                        StatsTable.bytes(VolumeMetrics.DIRTY.baseValueIn(v))));
                continue;
            }
            double hits = delta(VolumeMetrics.READ_HIT, old, v, null);
            double misses = delta(VolumeMetrics.READ_MISS, old, v, null);
            double cached = delta(VolumeMetrics.WRITE_CACHED, old, v, null);
            double around = delta(VolumeMetrics.BYPASSED, old, v, null);
            double writeback = delta(WritebackMetrics.WRITTEN, (Map<?, ?>) old.get("writeback"),
                    (Map<?, ?>) v.get("writeback"), null);
            rows.add(List.of(String.valueOf(v.get("name")),
                    perSecond(delta(VolumeMetrics.REQUEST_DURATION, old, v, "read"), seconds),
                    perSecond(delta(VolumeMetrics.REQUEST_DURATION, old, v, "write"), seconds),
                    StatsTable.bytes((hits + misses) / seconds),
                    hits + misses > 0 ? String.format(Locale.ROOT, "%.1f %%", 100 * hits / (hits + misses)) : "-",
                    StatsTable.bytes(cached / seconds), StatsTable.bytes(around / seconds),
                    StatsTable.bytes(writeback / seconds), StatsTable.bytes(VolumeMetrics.DIRTY.baseValueIn(v))));
        }
        StringBuilder out = new StringBuilder();
        StatsTable.table(out, rows);
        return out.toString();
    }

    private static Map<?, ?> volumeNamed(Map<?, ?> stats, Object name) {
        for (Object item : (List<?>) stats.get("volumes")) {
            if (item instanceof Map<?, ?> v && name != null && name.equals(v.get("name"))) {
                return v;
            }
        }
        return null;
    }

    /** How much a counter grew; a counter that went down (the server restarted) counts from zero. */
    private static double delta(MetricDescriptor<?> counter, Map<?, ?> before, Map<?, ?> now, String label) {
        if (before == null || now == null) {
            return Double.NaN;
        }
        double then = counter.baseValueIn(before, label);
        double value = counter.baseValueIn(now, label);
        return value >= then ? value - then : value;
    }

    private static String perSecond(double count, double seconds) {
        return Double.isNaN(count) ? "-" : String.format(Locale.ROOT, "%.0f", count / seconds);
    }
}

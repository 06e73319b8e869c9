package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The table and chart of {@code bench backing}: IOPS, p99, time to clean, and blockcache's ratios to the others. */
public final class BackingBenchReport {
    /** The setup the ratios are of. */
    static final String SUBJECT = "blockcache";
    static final String BARE = "slow-backing";
    static final String NBDKIT_CACHE = "nbdkit-cache";

    private BackingBenchReport() {
    }

    /** The table: one line per setup, backing and workload, then blockcache's ratios per backing and workload. */
    public static String table(List<BackingBenchResult> results) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-14s %-9s %-12s %10s %10s %10s %10s  %s%n", "setup", "backing",
                "workload", "IOPS", "p99 ms", "clean s", "around MiB", "kill -9 of the cache server"));
        for (BackingBenchResult result : results) {
            out.append(String.format(Locale.ROOT, "%-14s %-9s %-12s %10.0f %10.2f %10s %10s  %s%n", result.setup(),
                    result.backing(), result.workload(), result.iops(), result.p99Us() / 1000.0,
                    orDash(result.cleanSeconds(), "%.2f"), orDash(result.aroundMiB(), "%.1f"),
                    result.survivesKill9() ? "nothing lost" : "loses dirty data"));
        }
        for (SlowBacking backing : SlowBacking.values()) {
            for (String workload : List.of("randwrite4k", "randread4k")) {
                if (Double.isNaN(iops(results, SUBJECT, backing.label(), workload))) {
                    continue;
                }
                out.append(String.format(Locale.ROOT, "%s over the %s backing: blockcache %.1fx the bare slow "
                        + "backing, %.2fx nbdkit's cache filter%n", workload, backing.label(),
                        ratio(results, backing.label(), workload, BARE),
                        ratio(results, backing.label(), workload, NBDKIT_CACHE)));
            }
        }
        return out.toString();
    }

    private static String orDash(double value, String format) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
    }

    /** blockcache's IOPS over {@code other}'s for {@code workload} over {@code backing}; NaN if either is missing. */
    public static double ratio(List<BackingBenchResult> results, String backing, String workload, String other) {
        double subject = iops(results, SUBJECT, backing, workload);
        double reference = iops(results, other, backing, workload);
        return reference > 0 ? subject / reference : Double.NaN;
    }

    private static double iops(List<BackingBenchResult> results, String setup, String backing, String workload) {
        return results.stream().filter(r -> r.setup().equals(setup) && r.backing().equals(backing)
                        && r.workload().equals(workload))
                .mapToDouble(BackingBenchResult::iops).findFirst().orElse(Double.NaN);
    }

    /** Bars of IOPS per setup and backing: x = 1 for random writes, 2 for random reads. */
    public static void writeChart(List<BackingBenchResult> results, Path png) throws IOException {
        Map<String, Series> bySetup = new LinkedHashMap<>();
        for (BackingBenchResult result : results) {
            bySetup.computeIfAbsent(result.setup() + " / " + result.backing(), Series::new)
                    .add(result.workload().equals("randwrite4k") ? 1 : 2, result.iops());
        }
        boolean s3 = results.stream().anyMatch(r -> r.setup().equals(BackingBench.S3_SETUP));
        LineChart chart = new LineChart("4 KiB random I/O over a slow NBD backing (" + BackingBench.DELAY_MS
                + " ms per request: a disk, one at a time, or parallel)" + (s3 ? " and S3Proxy" : "")
                + ", fio iodepth " + BackingBench.IODEPTH, "workload", "IOPS").bars()
                .categories("", "random writes", "random reads");
        bySetup.values().forEach(chart::add);
        chart.writePng(png);
    }
}

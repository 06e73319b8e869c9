package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Presents {@code bench nbd} results: a table with each server's throughput as a ratio of nbdkit's for the same
 * workload, its CPU time per request and peak RSS, JSON lines, and a bar chart of the ratios.
 */
public final class NbdBenchReport {
    /** The reference server every ratio divides by. */
    public static final String REFERENCE_SERVER = "nbdkit-file";

    private NbdBenchReport() {
    }

    /** A fixed-width table, one row per result, grouped by workload in {@link NbdWorkload} order. */
    public static String table(List<NbdBenchResult> results) {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "%-20s %-15s %10s %9s %10s %10s %12s %9s%n", "workload", "server", "IOPS", "MiB/s", "p99 µs",
                "vs nbdkit", "CPU µs/req", "RSS MiB"));
        for (NbdWorkload workload : NbdWorkload.values()) {
            for (NbdBenchResult result : results) {
                if (result.workload() == workload) {
                    text.append(String.format(Locale.ROOT, "%-20s %-15s %10.0f %9.1f %10.0f %9.2fx %12.1f %9.0f%n",
                            workload.label(), result.server(), result.iops(), result.mibPerSecond(), result.p99Us(),
                            ratio(results, result), result.cpuUsPerRequest(), result.peakRssBytes() / 1048576.0));
                }
            }
        }
        text.append("CPU µs/req: the server's user+system time over the measured runtime / requests; "
                + "RSS: its peak resident set (VmHWM) so far.\n");
        return text.toString();
    }

    /** {@code result}'s IOPS over the reference server's IOPS for the same workload (NaN without a reference). */
    public static double ratio(List<NbdBenchResult> results, NbdBenchResult result) {
        for (NbdBenchResult other : results) {
            if (other.workload() == result.workload() && other.server().equals(REFERENCE_SERVER)) {
                return other.iops() > 0 ? result.iops() / other.iops() : Double.NaN;
            }
        }
        return Double.NaN;
    }

    /** A short name for the chart's x axis, where nine full labels would overlap ("r miss", "w paused", ...). */
    static String chartLabel(NbdWorkload workload) {
        return workload.label().replace("randread4k-", "r ").replace("randwrite4k-wbpaused", "w paused")
                .replace("randwrite4k-", "w ").replace("randwrite4k", "w").replace("seqwrite1m", "seq 1m");
    }

    /** Bars of the ratio vs nbdkit: x = workload number (1 = the first {@link NbdWorkload}, and so on). */
    public static void writeChart(List<NbdBenchResult> results, Path png) throws IOException {
        Map<String, Series> byServer = new LinkedHashMap<>();
        for (NbdBenchResult result : results) {
            double ratio = ratio(results, result);
            if (!Double.isNaN(ratio)) {
                byServer.computeIfAbsent(result.server(), Series::new)
                        .add(result.workload().ordinal() + 1, ratio);
            }
        }
        List<String> names = new ArrayList<>();
        names.add(""); // x = 0 is unused: workloads stand at 1, 2, 3
        for (NbdWorkload workload : NbdWorkload.values()) {
            names.add(chartLabel(workload));
        }
        LineChart chart = new LineChart("NBD throughput vs nbdkit file (fio nbd engine, iodepth 32)",
                "workload", "ratio to nbdkit (1 = as fast)").bars().categories(names.toArray(String[]::new));
        byServer.values().forEach(chart::add);
        chart.writePng(png);
    }
}

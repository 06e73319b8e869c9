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
                "%-20s %-15s %10s %9s %10s %10s %12s %9s %8s%n", "workload", "server", "IOPS", "MiB/s", "p99 µs",
                "vs nbdkit", "CPU µs/req", "RSS MiB", "steal %"));
        for (NbdWorkload workload : NbdWorkload.values()) {
            for (NbdBenchResult result : results) {
                if (result.workload() == workload) {
                    text.append(String.format(Locale.ROOT,
                            "%-20s %-15s %10.0f %9.1f %10.0f %9.2fx %12.1f %9.0f %8.1f%n", workload.label(),
                            result.server(), result.iops(), result.mibPerSecond(), result.p99Us(),
                            ratio(results, result), result.cpuUsPerRequest(), result.peakRssBytes() / 1048576.0,
                            result.stealPercent()));
                }
            }
        }
        text.append("CPU µs/req: the server's user+system time over the measured runtime / requests; "
                + "RSS: its peak resident set (VmHWM) so far; steal: CPU time the host took from this machine then.\n");
        List<String> noisy = new ArrayList<>();
        for (NbdBenchResult result : results) {
            if (result.stealPercent() > HostSteal.NOISY_PERCENT) {
                noisy.add(result.workload().label() + " on " + result.server());
            }
        }
        if (!noisy.isEmpty()) {
            text.append(String.format(Locale.ROOT, "measured while the host stole more than %.0f %% of the CPU "
                    + "(their ratios say more about the host than the servers): %s%n", HostSteal.NOISY_PERCENT,
                    String.join(", ", noisy)));
        }
        return text.toString();
    }

    /**
     * The medians of several runs, one line per server and row: IOPS, the medians of the per-run ratios to nbdkit
     * (IOPS, CPU per request, p99), the largest peak RSS, and for blockcache's builds the row's goal
     * ({@link NbdGoal}) and whether the medians meet it; a last line counts the rows that do.
     */
    public static String medianTable(List<NbdBenchMedian> medians) {
        int runs = medians.stream().mapToInt(NbdBenchMedian::runs).max().orElse(0);
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "median of %d runs (ratios to %s taken "
                + "within each run)%n%-20s %-15s %10s %10s %9s %9s %9s %9s %8s  %s%n", runs, REFERENCE_SERVER,
                "workload", "server", "IOPS", "vs nbdkit", "CPU µs", "CPU x", "p99 x", "RSS MiB", "steal %", "goal"));
        int rows = 0;
        int met = 0;
        for (NbdWorkload workload : NbdWorkload.values()) {
            for (NbdBenchMedian median : medians) {
                if (median.workload() != workload) {
                    continue;
                }
                String goal = "";
                if (median.isBlockcache()) {
                    rows++;
                    met += median.meetsGoal() ? 1 : 0;
                    goal = (median.meetsGoal() ? "met     " : "NOT met ") + NbdGoal.of(workload).describe();
                }
                text.append(String.format(Locale.ROOT, "%-20s %-15s %10.0f %9.2fx %9.1f %8.2fx %8.2fx %9.0f %8.1f  %s",
                        workload.label(), median.server(), median.iops(), median.iopsRatio(), median.cpuUs(),
                        median.cpuRatio(), median.p99Ratio(), median.peakRssBytes() / 1048576.0,
                        median.stealPercentMax(), goal)
                        .stripTrailing()).append('\n');
            }
        }
        text.append(String.format(Locale.ROOT, "goals met by blockcache's medians: %d of %d rows (peak RSS <= %d MiB "
                + "counts in every row); steal %%: the most CPU the host took from this machine in any run of the row, "
                + "above %.0f %% the row measured the host as much as the servers%n", met, rows,
                NbdGoal.PEAK_RSS_MAX_BYTES >> 20, HostSteal.NOISY_PERCENT));
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
            add(byServer, result.server(), result.workload(), ratio(results, result));
        }
        writeChart(byServer, "NBD throughput vs nbdkit file (fio nbd engine, iodepth 32)", png);
    }

    /** The bars of {@link #writeChart(List, Path)} for the medians of several runs. */
    public static void writeMedianChart(List<NbdBenchMedian> medians, Path png) throws IOException {
        Map<String, Series> byServer = new LinkedHashMap<>();
        for (NbdBenchMedian median : medians) {
            add(byServer, median.server(), median.workload(), median.iopsRatio());
        }
        int runs = medians.stream().mapToInt(NbdBenchMedian::runs).max().orElse(0);
        writeChart(byServer, "NBD throughput vs nbdkit file, median of " + runs + " runs (fio nbd, iodepth 32)", png);
    }

    private static void add(Map<String, Series> byServer, String server, NbdWorkload workload, double ratio) {
        if (!Double.isNaN(ratio)) {
            byServer.computeIfAbsent(server, Series::new).add(workload.ordinal() + 1, ratio);
        }
    }

    private static void writeChart(Map<String, Series> byServer, String title, Path png) throws IOException {
        List<String> names = new ArrayList<>();
        names.add(""); // x = 0 is unused: workloads stand at 1, 2, 3
        for (NbdWorkload workload : NbdWorkload.values()) {
            names.add(chartLabel(workload));
        }
        LineChart chart = new LineChart(title, "workload", "ratio to nbdkit (1 = as fast)").bars()
                .categories(names.toArray(String[]::new));
        byServer.values().forEach(chart::add);
        chart.writePng(png);
    }
}

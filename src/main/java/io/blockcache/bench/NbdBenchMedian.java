package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One server's row of {@code bench nbd --runs N}: the median over the runs of each figure, each ratio to nbdkit
 * taken within its own run first (so the median of ratios, never a ratio of medians: nbdkit's own numbers swing
 * ±50 % between runs on a shared machine, and only neighbouring cells compare), and whether that meets
 * {@link NbdGoal}. This is the goal's "run it three times; the median must meet every row".
 *
 * @param server       server name as in {@link NbdBenchResult}
 * @param workload     the row
 * @param runs         how many runs measured this cell
 * @param iops         median IOPS
 * @param iopsRatio    median of the per-run IOPS ratios to nbdkit-file (NaN without a reference)
 * @param cpuUs        median server CPU µs per request
 * @param cpuRatio     median of the per-run CPU-per-request ratios to nbdkit-file
 * @param p99Ratio     median of the per-run p99 ratios to nbdkit-file
 * @param peakRssBytes the largest peak resident set any run saw
 * @param stealPercentMax the most CPU the host took in any run's measured part, % ({@link HostSteal}; NaN if unknown)
 */
public record NbdBenchMedian(String server, NbdWorkload workload, int runs, double iops, double iopsRatio,
                             double cpuUs, double cpuRatio, double p99Ratio, long peakRssBytes,
                             double stealPercentMax) {
    /**
     * The medians of every (server, workload) cell over {@code runs} (each run's results as {@link NbdBench#run}
     * returns them), in the first run's order.
     */
    public static List<NbdBenchMedian> of(List<List<NbdBenchResult>> runs) {
        Map<String, List<Cell>> cells = new LinkedHashMap<>();
        for (List<NbdBenchResult> run : runs) {
            for (NbdBenchResult result : run) {
                NbdBenchResult reference = reference(run, result.workload());
                cells.computeIfAbsent(result.server() + '\n' + result.workload().name(), key -> new ArrayList<>())
                        .add(new Cell(result, reference));
            }
        }
        List<NbdBenchMedian> medians = new ArrayList<>();
        for (List<Cell> cell : cells.values()) {
            NbdBenchResult first = cell.get(0).result();
            medians.add(new NbdBenchMedian(first.server(), first.workload(), cell.size(),
                    median(cell, c -> c.result().iops()),
                    median(cell, c -> divide(c.result().iops(), c.reference() == null ? 0 : c.reference().iops())),
                    median(cell, c -> c.result().cpuUsPerRequest()),
                    median(cell, c -> divide(c.result().cpuUsPerRequest(),
                            c.reference() == null ? 0 : c.reference().cpuUsPerRequest())),
                    median(cell, c -> divide(c.result().p99Us(), c.reference() == null ? 0 : c.reference().p99Us())),
                    cell.stream().mapToLong(c -> c.result().peakRssBytes()).max().orElse(0),
                    cell.stream().mapToDouble(c -> c.result().stealPercent()).filter(p -> !Double.isNaN(p)).max()
                            .orElse(Double.NaN)));
        }
        return medians;
    }

    /** Whether this is one of blockcache's builds, the servers the goals are for. */
    public boolean isBlockcache() {
        return server.startsWith("blockcache");
    }

    /** Whether the medians meet the row's {@link NbdGoal} and the peak RSS bound. */
    public boolean meetsGoal() {
        return NbdGoal.of(workload).metBy(iopsRatio, cpuRatio, p99Ratio) && peakRssBytes <= NbdGoal.PEAK_RSS_MAX_BYTES;
    }

    /** One JSON object on one line, {@code "run":"median"} to tell it from the runs' own lines. */
    public String toJsonLine() {
        JsonWriter json = new JsonWriter().beginObject().field("run", "median").field("runs", runs)
                .field("server", server).field("workload", workload.label());
        BenchJson.decimal(json, "iops", iops, 1);
        BenchJson.decimal(json, "iopsRatio", iopsRatio, 3);
        BenchJson.decimal(json, "cpuUsPerRequest", cpuUs, 3);
        BenchJson.decimal(json, "cpuRatio", cpuRatio, 3);
        BenchJson.decimal(json, "p99Ratio", p99Ratio, 3);
        BenchJson.decimal(json, "peakRssMiB", peakRssBytes / 1048576.0, 1);
        BenchJson.decimal(json, "stealPercentMax", stealPercentMax, 3);
        if (isBlockcache()) {
            json.field("goalMet", meetsGoal());
        }
        return json.endObject().toString();
    }

    private record Cell(NbdBenchResult result, NbdBenchResult reference) {
    }

    private static NbdBenchResult reference(List<NbdBenchResult> run, NbdWorkload workload) {
        for (NbdBenchResult result : run) {
            if (result.workload() == workload && result.server().equals(NbdBenchReport.REFERENCE_SERVER)) {
                return result;
            }
        }
        return null;
    }

    private static double divide(double value, double reference) {
        return reference > 0 ? value / reference : Double.NaN;
    }

    /** The median, the mean of the middle two for an even count; NaN if any value is NaN (nothing to compare). */
    private static double median(List<Cell> cells, ToDoubleFunction<Cell> value) {
        double[] values = cells.stream().mapToDouble(value).sorted().toArray();
        if (Arrays.stream(values).anyMatch(Double::isNaN)) {
            return Double.NaN;
        }
        int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}

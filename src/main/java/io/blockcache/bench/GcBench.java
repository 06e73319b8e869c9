package io.blockcache.bench;

import io.blockcache.gc.GcConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench gc}: the GC latency experiment (real time) and the full-cache experiment (simulated time) of
 * the GC goals, printed as a table or as JSON lines, with PNG charts.
 *
 * <p>Thread rule: the caller's thread; the real-time experiment starts and stops its own loop thread.
 */
public final class GcBench {
    /**
     * What to run.
     *
     * @param extents index size of the GC latency experiment
     * @param rounds rounds of no-gc / unsliced / sliced
     * @param fullCacheBytes cache size of the full-cache experiment
     * @param imageDir where the PNG charts go, or null for none
     */
    public record Plan(long extents, long warmupMs, long noGcWindowMs, int rounds, long fullCacheBytes,
                       int fullCacheBucketBytes, Path imageDir) {
        /** The full run: 10 million extents, 2 rounds, a 128 MiB cache written 3 times. */
        public static Plan full(Path imageDir) {
            return new Plan(10_000_000, 3000, 2000, 2, 128L << 20, 1 << 20, imageDir);
        }

        /** Under a minute: 1 million extents, 1 round, a 32 MiB cache. */
        public static Plan quick(Path imageDir) {
            return new Plan(1_000_000, 1000, 1000, 1, 32L << 20, 1 << 20, imageDir);
        }
    }

    private GcBench() {
    }

    /**
     * Runs both experiments and prints the results to {@code out}; progress lines go to {@code log}.
     *
     * @return every result row
     */
    public static List<String> run(Plan plan, boolean json, PrintStream out, PrintStream log) throws IOException {
        log.println("bench gc: JVM collectors " + JvmPauseLog.collectors() + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        GcLatencyExperiment latency = new GcLatencyExperiment(new GcLatencyExperiment.Settings(plan.extents(), 8, 50,
                plan.warmupMs(), plan.noGcWindowMs(), plan.rounds(), GcConfig.defaults(), 42), log::println);
        List<GcLatencyExperiment.Measurement> measurements = latency.run();
        FullCacheExperiment.Result full = new FullCacheExperiment(new FullCacheExperiment.Settings(
                plan.fullCacheBytes(), plan.fullCacheBucketBytes(), 8, 3, 8, 43), log::println).run();
        List<GcBenchRow> rows = new ArrayList<>();
        measurements.forEach(m -> rows.add(m.row()));
        rows.add(full.row());
        List<String> lines = new ArrayList<>();
        if (json) {
            rows.forEach(row -> lines.add(row.toJson()));
        } else {
            lines.addAll(table(rows));
        }
        lines.forEach(out::println);
        if (plan.imageDir() != null) {
            charts(plan.imageDir(), measurements, full);
        }
        return lines;
    }

    private static List<String> table(List<GcBenchRow> rows) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "%-11s %-9s %11s %9s %9s %9s %9s %9s %7s %9s %9s %6s", "experiment",
                "mode", "extents", "p50 µs", "p99 µs", "p99.9 µs", "max µs", "GC ms", "JVM ms", "MiB/s", "sorted",
                "dirtyEv"));
        for (GcBenchRow r : rows) {
            lines.add(String.format(Locale.ROOT, "%-11s %-9s %11s %9.0f %9.0f %9.0f %9.0f %9s %7s %9s %9s %6s",
                    r.experiment(), r.mode(), r.extents() == null ? "-" : String.format("%,d", r.extents()),
                    r.p50Us(), r.p99Us(), r.p999Us(), r.maxUs(), number(r.gcDurationMs()),
                    number(r.jvmPauseMaxMs()), number(r.throughputMiBPerSecond()),
                    number(r.sortedWriteMiBPerSecond()), r.dirtyEvictions() == null ? "-" : r.dirtyEvictions()));
        }
        return lines;
    }

    private static String number(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static void charts(Path dir, List<GcLatencyExperiment.Measurement> measurements,
                               FullCacheExperiment.Result full) throws IOException {
        LineChart latency = new LineChart("Front-end latency, max per 10 ms (first round)", "time since start, ms",
                "max latency, ms");
        List<String> drawn = new ArrayList<>();
        for (GcLatencyExperiment.Measurement m : measurements) {
            if (drawn.contains(m.row().mode())) {
                continue;
            }
            drawn.add(m.row().mode());
            Series series = new Series(m.row().mode());
            LatencyTimeline timeline = m.timeline();
            for (int w = 0; w < timeline.windows(); w++) {
                series.add(w * timeline.windowNs() / 1e6, timeline.latencyNsMax(w) / 1e6);
            }
            latency.add(series);
        }
        latency.writePng(dir.resolve("gc-latency-timeline.png"));
        LineChart throughput = new LineChart("Full cache: 4 KiB random writes, QD 8, simulated HDD",
                "simulated time, s", "MiB/s");
        throughput.add(full.throughput());
        Series sorted = new Series("HDD sorted 4 KiB writes");
        List<double[]> points = full.throughput().points();
        if (!points.isEmpty()) {
            sorted.add(points.get(0)[0], full.row().sortedWriteMiBPerSecond());
            sorted.add(points.get(points.size() - 1)[0], full.row().sortedWriteMiBPerSecond());
        }
        throughput.add(sorted);
        throughput.writePng(dir.resolve("gc-full-cache-throughput.png"));
    }
}

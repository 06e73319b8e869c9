package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Turns the rows of {@link WritebackBench} into Markdown tables with ratios, and into PNG charts. */
public final class WritebackReport {
    private WritebackReport() {
    }

    /** One Markdown table per experiment. */
    public static String tables(WritebackBench bench) {
        List<BenchRow> rows = bench.rows();
        StringBuilder out = new StringBuilder();
        out.append("### idle drain\n\n| HDD write cache | policy | dirty MiB | MiB/s | × classic | / ideal "
                + "| mean backing queue depth | time to clean s |\n|---|---|---|---|---|---|---|---|\n");
        for (boolean cache : new boolean[] {false, true}) {
            BenchRow classic = find(rows, "idle-drain", "classic", "hddWriteCache", cache);
            BenchRow ideal = find(rows, "idle-drain", "ideal", "hddWriteCache", cache);
            for (BenchRow r : select(rows, "idle-drain", "hddWriteCache", cache)) {
                double mibs = r.number("writebackMiBPerSecond");
                out.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.2f | %.2f | %.0f %% | %.1f | %.1f |%n",
                        cache ? "on" : "off", r.policy(), r.number("dirtyBytes") / 1048576.0, mibs,
                        mibs / classic.number("writebackMiBPerSecond"),
                        100 * mibs / ideal.number("writebackMiBPerSecond"), r.number("meanBackingQueueDepth"),
                        r.number("timeToCleanSeconds")));
            }
        }
        BenchRow busyClassic = find(rows, "busy", "classic", null, null);
        out.append("\n### busy\n\n| policy | front-end IOPS | × classic | p50 µs | p99 µs | p99 × classic "
                + "| written back MiB | writeback MiB/s |\n|---|---|---|---|---|---|---|---|\n");
        for (BenchRow r : select(rows, "busy", null, null)) {
            out.append(String.format(Locale.ROOT, "| %s | %.1f | %.3f | %.0f | %.0f | %.3f | %.1f | %.2f |%n",
                    r.policy(), r.number("frontendIops"), r.number("frontendIops") / busyClassic.number("frontendIops"),
                    r.number("frontendP50Us"), r.number("frontendP99Us"),
                    r.number("frontendP99Us") / busyClassic.number("frontendP99Us"),
                    r.number("writtenBackBytes") / 1048576.0, r.number("writebackMiBPerSecond")));
        }
        out.append("\n### sweep (MiB/s; auto ÷ best)\n\n| block | lba | fifo | auto | classic | auto / best "
                + "|\n|---|---|---|---|---|---|\n");
        for (double block : distinct(select(rows, "sweep", null, null), "blockSizeBytes")) {
            double[] v = new double[4];
            String[] names = {"lba", "fifo", "auto", "classic"};
            for (int i = 0; i < 4; i++) {
                v[i] = find(rows, "sweep", names[i], "blockSizeBytes", (int) block).number("writebackMiBPerSecond");
            }
            double best = Math.max(Math.max(v[0], v[1]), Math.max(v[2], v[3]));
            out.append(String.format(Locale.ROOT, "| %d KiB | %.2f | %.2f | %.2f | %.2f | %.3f |%n",
                    (int) block / 1024, v[0], v[1], v[2], v[3], v[2] / best));
        }
        out.append("\n### bursts\n\n| policy | burst | dirty MiB at end | time to clean s | ideal s "
                + "| idle reaction ms | busy reaction ms |\n|---|---|---|---|---|---|---|\n");
        for (BenchRow r : select(rows, "bursts", null, null)) {
            out.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %s | %.2f | %s | %s |%n", r.policy(),
                    r.get("burst"), r.number("dirtyBytes") / 1048576.0, orNever(r.get("timeToCleanSeconds"), "%.2f"),
                    r.number("idealTimeToCleanSeconds"), orNever(r.get("idleReactionMs"), "%.0f"),
                    orNever(r.get("busyReactionMs"), "%.0f")));
        }
        out.append(sustainedTable(bench));
        out.append(epochTable(rows));
        out.append(objectStoreTable(bench));
        return out.toString();
    }

    /**
     * Sustained overload: steady-state front end against the ideal sweep at the density each policy held, and
     * against classic.
     */
    public static String sustainedTable(WritebackBench bench) {
        List<BenchRow> rows = select(bench.rows(), "sustained", null, null);
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("\n### sustained overload (4 KiB random writes, QD32, span = cache)\n\n"
                + "| policy | front-end MiB/s | IOPS | lowest 1-s IOPS | p50 µs | p99 µs | mean dirty % "
                + "| ideal sweep MiB/s | ÷ ideal | × classic | writeback MiB/s | around the cache % | held writes "
                + "| mean hold µs |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        double classic = find(rows, "sustained", "classic", null, null).number("frontendMiBPerSecond");
        for (BenchRow r : rows) {
            double mibs = r.number("frontendMiBPerSecond");
            out.append(String.format(Locale.ROOT, "| %s | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f "
                    + "| %.2f | %.2f | %.1f | %.0f | %.0f |%n", r.policy(), mibs, r.number("frontendIops"),
                    r.number("windowIopsMin"), r.number("frontendP50Us"), r.number("frontendP99Us"),
                    r.number("meanDirtyPercent"), r.number("idealSweepMiBPerSecond"),
                    mibs / r.number("idealSweepMiBPerSecond"), mibs / classic, r.number("writebackMiBPerSecond"),
                    r.number("bypassedPercent"), r.number("writesThrottled"), r.number("throttleDelayMeanUs")));
        }
        return out.toString();
    }

    /** Writes writeback-sustained.png (dirty share over time, each policy) into {@code dir}, if the run has it. */
    public static void sustainedChart(WritebackBench bench, Path dir) throws IOException {
        if (bench.sustainedCurves().isEmpty()) {
            return;
        }
        LineChart chart = new LineChart("Sustained 4 KiB random writes (QD32): dirty data", "time (s)",
                "dirty data, % of the cache");
        bench.sustainedCurves().forEach(chart::add);
        chart.writePng(dir.resolve("writeback-sustained.png"));
    }

    /** The object-store drains: time to clean and steady upload rate against the chunk math's ideal. */
    public static String objectStoreTable(WritebackBench bench) {
        StringBuilder out = new StringBuilder("\n### object store\n\n| set | policy | dirty MiB | chunks "
                + "| time to clean s | ideal s | / ideal | steady upload MB/s | ideal MB/s | / ideal | PUTs "
                + "| GETs (ideal) | whole / partial chunks |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (BenchRow r : select(bench.rows(), "object-store", null, null)) {
            out.append(String.format(Locale.ROOT,
                    "| %s | %s | %.0f | %.0f | %.2f | %.2f | %.0f %% | %.0f | %.0f | %.0f %% | %.0f | %.0f (%.0f) "
                            + "| %.0f / %.0f |%n",
                    r.get("set"), r.policy(), r.number("dirtyBytes") / 1048576.0, r.number("chunks"),
                    r.number("timeToCleanSeconds"), r.number("idealTimeToCleanSeconds"),
                    100 * r.number("idealTimeToCleanSeconds") / r.number("timeToCleanSeconds"),
                    r.number("steadyUploadMBPerSecond"), r.number("idealUploadMBPerSecond"),
                    100 * r.number("steadyUploadMBPerSecond") / r.number("idealUploadMBPerSecond"),
                    r.number("puts"), r.number("gets"), r.number("idealGets"), r.number("chunksWhole"),
                    r.number("chunksPartial")));
        }
        List<BenchRow> ordering = select(bench.rows(), "object-store-ordering", null, null);
        if (!ordering.isEmpty()) {
            out.append("\n### object store, ordered (the whole-chunks set written with FLUSHes)\n\n| flush every "
                    + "| policy | log MiB | dirty MiB | time to clean s | vs modern | PUT MiB | GET MiB | PUTs | GETs "
                    + "| whole / partial chunks |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (BenchRow r : ordering) {
                double modern = find(bench.rows(), "object-store-ordering", "modern", "flushEvery", r.get("flushEvery"))
                        .number("timeToCleanSeconds");
                out.append(String.format(Locale.ROOT,
                        "| %s | %s | %.0f | %.0f | %.2f | %.3f | %.0f | %.0f | %.0f | %.0f | %.0f / %.0f |%n",
                        r.get("flushEvery"), r.policy(), r.number("logMiB"), r.number("dirtyBytes") / 1048576.0,
                        r.number("timeToCleanSeconds"), modern / r.number("timeToCleanSeconds"), r.number("putMiB"),
                        r.number("getMiB"), r.number("puts"), r.number("gets"), r.number("chunksWhole"),
                        r.number("chunksPartial")));
            }
        }
        return out.toString();
    }

    /**
     * The cost of epoch ordering: each experiment and flush cadence, epochs and journaled against modern and classic.
     */
    private static String epochTable(List<BenchRow> rows) {
        StringBuilder out = new StringBuilder("\n### epoch ordering\n\n| experiment | flush every | measure | modern "
                + "| epochs | epochs vs modern | journaled | journaled vs modern | classic (1 s) "
                + "| journaled vs classic |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
        // "vs" is a speed ratio, above 1 = the ordered one better: for a time it is the other's time ÷ its time.
        String[][] measures = {{"epochs-idle-drain", "writebackMiBPerSecond", "MiB/s"},
            {"epochs-busy", "frontendIops", "front-end IOPS"}, {"epochs-busy", "writebackMiBPerSecond", "MiB/s"},
            {"epochs-bursts", "meanTimeToCleanSeconds", "time to clean s"}};
        for (String[] m : measures) {
            List<BenchRow> selected = select(rows, m[0], null, null);
            if (selected.isEmpty()) {
                continue;
            }
            double classic = find(rows, m[0], "classic", null, null).number(m[1]);
            for (String cadence : List.of("1s", "100ms", "write")) {
                double modern = find(rows, m[0], "modern", "flushEvery", cadence).number(m[1]);
                double epochs = find(rows, m[0], "epochs", "flushEvery", cadence).number(m[1]);
                double journaled = find(rows, m[0], "journaled", "flushEvery", cadence).number(m[1]);
                boolean time = m[1].endsWith("Seconds");
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        m[0].substring("epochs-".length()), cadence, m[2], figure(modern), figure(epochs),
                        figure(time ? modern / epochs : epochs / modern), figure(journaled),
                        figure(time ? modern / journaled : journaled / modern), figure(classic),
                        time && Double.isNaN(classic) && !Double.isNaN(journaled) ? "∞"
                                : figure(time ? classic / journaled : journaled / classic)));
            }
        }
        List<BenchRow> bound = select(rows, "epochs-idle-drain", null, null).stream()
                .filter(r -> r.policy().equals("journaled-bound")).toList();
        if (!bound.isEmpty()) {
            out.append("\n### epoch ordering: journaled write-back, a bound (I/O pattern only, no engine)\n\n"
                    + "| flush every | log MiB | transactions | MiB/s | vs modern | vs epochs | vs ideal sweep |\n"
                    + "|---|---|---|---|---|---|---|\n");
            for (BenchRow r : bound) {
                String cadence = (String) r.get("flushEvery");
                double mib = r.number("writebackMiBPerSecond");
                out.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s | %s | %s | %s |%n", cadence,
                        r.number("logMiB"), r.number("transactions"), figure(mib),
                        figure(mib / find(rows, "epochs-idle-drain", "modern", "flushEvery", cadence)
                                .number("writebackMiBPerSecond")),
                        figure(mib / find(rows, "epochs-idle-drain", "epochs", "flushEvery", cadence)
                                .number("writebackMiBPerSecond")),
                        figure(mib / r.number("idealSweepMiBPerSecond"))));
            }
        }
        List<BenchRow> overwrites = select(rows, "epochs-overwrites", null, null);
        if (!overwrites.isEmpty()) {
            out.append("\n### epoch ordering: writes over older epochs\n\n| policy | flush every | writes | held "
                    + "| p50 µs | p99 µs | max µs |\n|---|---|---|---|---|---|---|\n");
            for (BenchRow r : overwrites) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |%n", r.policy(),
                        r.get("flushEvery"), r.number("writes"), r.number("heldWrites"), r.number("writeP50Us"),
                        r.number("writeP99Us"), r.number("writeMaxUs")));
            }
        }
        return out.toString();
    }

    /** Writes writeback-idle-drain.png, writeback-sweep.png and writeback-bursts.png into {@code dir}. */
    public static void charts(WritebackBench bench, Path dir) throws IOException {
        List<BenchRow> rows = bench.rows();
        LineChart idle = new LineChart("Idle drain: writeback throughput", "HDD volatile write cache", "MiB/s")
                .bars().categories("off", "on");
        for (String name : List.of("ideal", "modern", "classic")) {
            Series s = new Series(name);
            for (BenchRow r : select(rows, "idle-drain", null, null)) {
                if (r.policy().equals(name)) {
                    s.add(Boolean.TRUE.equals(r.get("hddWriteCache")) ? 1 : 0, r.number("writebackMiBPerSecond"));
                }
            }
            idle.add(s);
        }
        idle.writePng(dir.resolve("writeback-idle-drain.png"));
        LineChart sweep = new LineChart("Block-size sweep: writeback throughput, HDD write cache off",
                "block size (KiB)", "MiB/s").logX();
        for (String name : List.of("lba", "fifo", "auto", "classic")) {
            Series s = new Series(name);
            for (BenchRow r : select(rows, "sweep", null, null)) {
                if (r.policy().equals(name)) {
                    s.add(r.number("blockSizeBytes") / 1024, r.number("writebackMiBPerSecond"));
                }
            }
            sweep.add(s);
        }
        sweep.writePng(dir.resolve("writeback-sweep.png"));
        LineChart bursts = new LineChart("Bursts: 10 s of writes, 20 s idle; dirty data", "time (s)", "dirty MiB");
        bench.burstCurves().forEach(bursts::add);
        bursts.writePng(dir.resolve("writeback-bursts.png"));
        sustainedChart(bench, dir);
        if (!bench.epochCurves().isEmpty()) {
            LineChart epochs = new LineChart("Bursts with a FLUSH every second: dirty data", "time (s)", "dirty MiB");
            bench.epochCurves().forEach(epochs::add);
            epochs.writePng(dir.resolve("writeback-epochs-bursts.png"));
        }
    }

    /**
     * Writes writeback-object-store-ordering.png into {@code dir} if the run has the ordered object-store rows: time to
     * clean per policy and cadence, on a log axis (strict epochs take some 1,000 times longer than unordered).
     */
    public static void objectStoreCharts(WritebackBench bench, Path dir) throws IOException {
        List<BenchRow> rows = select(bench.rows(), "object-store-ordering", null, null);
        if (rows.isEmpty()) {
            return;
        }
        List<String> cadences = List.of("1s", "100ms");
        LineChart chart = new LineChart(String.format(Locale.ROOT, "Object store: %.0f MiB rewritten with FLUSHes, "
                + "drained idle", rows.get(0).number("dirtyBytes") / 1048576.0),
                "FLUSH every", "time to clean (s, log scale)").bars().logY().categories("1 s", "100 ms");
        Map<String, Series> lines = new LinkedHashMap<>();
        for (BenchRow r : rows) {
            String name = r.policy().equals("journaled") ? "journaled, log " + Math.round(r.number("logMiB")) + " MiB"
                    : r.policy();
            lines.computeIfAbsent(name, Series::new).add(cadences.indexOf(r.get("flushEvery")),
                    r.number("timeToCleanSeconds"));
        }
        lines.values().forEach(chart::add);
        chart.writePng(dir.resolve("writeback-object-store-ordering.png"));
    }

    /** Two decimals, or "never" for a time that never came (NaN: classic never cleans between bursts). */
    private static String figure(double value) {
        return Double.isNaN(value) ? "never" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String orNever(Object value, String format) {
        return value instanceof Number n ? String.format(Locale.ROOT, format, n.doubleValue()) : "never";
    }

    private static List<BenchRow> select(List<BenchRow> rows, String experiment, String field, Object value) {
        List<BenchRow> out = new ArrayList<>();
        for (BenchRow r : rows) {
            if (r.experiment().equals(experiment) && (field == null || value.equals(r.get(field)))) {
                out.add(r);
            }
        }
        return out;
    }

    private static BenchRow find(List<BenchRow> rows, String experiment, String policy, String field, Object value) {
        for (BenchRow r : select(rows, experiment, field, value)) {
            if (r.policy().equals(policy)) {
                return r;
            }
        }
        throw new IllegalStateException("no row " + experiment + "/" + policy + " " + field + "=" + value);
    }

    private static List<Double> distinct(List<BenchRow> rows, String field) {
        List<Double> out = new ArrayList<>();
        for (BenchRow r : rows) {
            if (!out.contains(r.number(field))) {
                out.add(r.number(field));
            }
        }
        return out;
    }
}

package io.blockcache.cli;

import io.blockcache.bench.NbdBench;
import io.blockcache.bench.NbdBenchMedian;
import io.blockcache.bench.NbdBenchReport;
import io.blockcache.bench.NbdBenchResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache bench nbd}: fio's nbd engine against blockcache serve, nbdkit's file plugin and qemu-nbd in
 * one run (see {@link NbdBench}), or in {@code --runs N} runs and their medians against the goals ({@link
 * io.blockcache.bench.NbdGoal}) ({@link NbdBenchMedian}). Needs {@code fio}, {@code nbdkit} and {@code qemu-nbd} on the
 * PATH. Exit 0 when every cell was measured (whether or not the goals are met: this is a measurement), 1 when a server
 * or fio failed, 2 for a bad option.
 */
@Command(name = "nbd", mixinStandardHelpOptions = true,
        description = {"Benchmark NBD servers side by side with fio's nbd engine: blockcache serve (write-back),",
                "nbdkit file and qemu-nbd; 4 KiB random reads of missed data and of data cached by 4 KiB, 64 KiB",
                "and 1 MiB writes, 4 KiB random writes (writeback running and paused), 1 MiB sequential writes,",
                "all at 32 in flight (1 x 32, and 4 connections x 8); IOPS, p99, server CPU per request, peak RSS."})
final class BenchNbdCommand implements Callable<Integer> {
    /** More than nine runs of ~9 minutes each is a night's work, not a benchmark anyone waits for. */
    private static final int RUNS_MAX = 9;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object per line instead of the table.")
    private boolean json;

    @Option(names = "--quick", description = "1 s ramp + 3 s per job over regions a quarter as long (about 3 min)"
            + " instead of 2 + 10 s.")
    private boolean quick;

    @Option(names = "--baseline", paramLabel = "CLASSPATH",
            description = "Also run another blockcache build (e.g. main's target/blockcache.jar) side by side, as"
                    + " blockcache-base: before/after in one run.")
    private String baseline;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1",
            description = "Run everything N times (fresh servers each time; 1 to 9, default ${DEFAULT-VALUE}) and, for"
                    + " N > 1, also print the median of each row's ratios with the issue's goal met or not.")
    private int runs;

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "/var/tmp",
            description = "Where the servers' files go (a fresh subdirectory, removed afterwards;"
                    + " default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--chart", paramLabel = "PNG", defaultValue = "docs/img/nbd-bench.png",
            description = "Where to write the bar chart of ratios vs nbdkit (default: ${DEFAULT-VALUE}).")
    private Path chart;

    @Option(names = "--sustained", description = "Run only the sustained-write rows (docs/WRITEBACK.md "
            + "\"Sustained writes\") and write their chart of the dirty share beside --chart.")
    private boolean sustained;

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "-1",
            description = "With --sustained: seconds of each sustained row (default: the issue's length).")
    private int durationSeconds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (sustained) {
            return sustained(out, err);
        }
        if (runs < 1 || runs > RUNS_MAX) {
            err.println("bench nbd: --runs must be 1 to " + RUNS_MAX + ", not " + runs);
            return 2;
        }
        List<List<NbdBenchResult>> all = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            String tag = runs == 1 ? "bench nbd" : "bench nbd run " + run + " of " + runs;
            List<NbdBenchResult> results = BenchWorkDir.run(dir, tag, err,
                    (workDir, progress) -> new NbdBench(workDir, quick, baseline, progress).run());
            if (results == null) {
                return 1;
            }
            all.add(results);
            printRun(out, results, runs == 1 ? 0 : run);
        }
        if (runs == 1) {
            NbdBenchReport.writeChart(all.get(0), chart);
        } else {
            List<NbdBenchMedian> medians = NbdBenchMedian.of(all);
            if (json) {
                medians.forEach(median -> out.println(median.toJsonLine()));
            } else {
                out.print(NbdBenchReport.medianTable(medians));
            }
            out.flush();
            NbdBenchReport.writeMedianChart(medians, chart);
        }
        err.println("bench nbd: chart written to " + chart);
        err.flush();
        return 0;
    }

    /** One run's lines as they come (run 0: the only one, printed without a run number). */
    private void printRun(PrintWriter out, List<NbdBenchResult> results, int run) {
        if (json) {
            results.forEach(result -> out.println(run == 0 ? result.toJsonLine() : result.toJsonLine(run)));
        } else {
            if (run > 0) {
                out.println("run " + run);
            }
            out.print(NbdBenchReport.table(results));
        }
        out.flush();
    }

    /** The sustained rows alone: a table (or JSON lines) and the dirty-share chart beside {@code --chart}. */
    private int sustained(PrintWriter out, PrintWriter err) throws Exception {
        int seconds = durationSeconds > 0 ? durationSeconds : NbdBench.SUSTAINED_SECONDS;
        java.util.List<io.blockcache.bench.SustainedFioRun.Result> results = BenchWorkDir.run(dir,
                "bench nbd --sustained", err,
                (workDir, progress) -> new NbdBench(workDir, quick, baseline, progress).runSustained(seconds));
        if (results == null) {
            return 1;
        }
        io.blockcache.bench.SustainedFioRun.report(results, json, out, err, "bench nbd",
                "randwrite4k-sustained: dirty data and buckets in use",
                chart.resolveSibling("nbd-sustained.png"));
        return 0;
    }
}

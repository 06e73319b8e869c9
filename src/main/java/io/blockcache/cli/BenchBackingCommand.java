package io.blockcache.cli;

import io.blockcache.bench.BackingBench;
import io.blockcache.bench.BackingBenchReport;
import io.blockcache.bench.BackingBenchResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache bench backing}: blockcache over a slow NBD backing vs the bare backing vs nbdkit's cache filter
 * (see {@link BackingBench}). Needs {@code fio}, {@code nbdkit} and {@code nbdsh}. Exit 0 when every cell was
 * measured, 1 when a server or fio failed.
 */
@Command(name = "backing", mixinStandardHelpOptions = true,
        description = {"Benchmark caching a slow NBD backing (nbdkit memory + delay filter, 4 ms per request, served",
                "as a disk answering one request at a time, then as a store answering all at once): blockcache serve",
                "over it, the bare backing, and nbdkit's cache filter over it; fio 4 KiB random writes then reads",
                "over 16 MiB at iodepth 16, 3 s ramp + 10 s each; IOPS, p99, time to clean, ratios.",
                "Then the same against serve over an s3:// backing on S3Proxy (local, in memory), if its jar is in the",
                "local Maven repository (./mvnw test fetches it)."})
final class BenchBackingCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON object per line instead of the table.")
    private boolean json;

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "/var/tmp",
            description = "Where the servers' files go (a fresh subdirectory, removed afterwards;"
                    + " default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--chart", paramLabel = "PNG", defaultValue = "docs/img/backing-bench.png",
            description = "Where to write the bar chart of IOPS (default: ${DEFAULT-VALUE}).")
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
        List<BackingBenchResult> results = BenchWorkDir.run(dir, "bench backing", err,
                (workDir, progress) -> new BackingBench(workDir, progress).run());
        if (results == null) {
            return 1;
        }
        if (json) {
            results.forEach(result -> out.println(result.toJsonLine()));
        } else {
            out.print(BackingBenchReport.table(results));
        }
        out.flush();
        BackingBenchReport.writeChart(results, chart);
        err.println("bench backing: chart written to " + chart);
        err.flush();
        return 0;
    }

    /** The sustained rows alone: a table (or JSON lines) and the dirty-share chart beside {@code --chart}. */
    private int sustained(PrintWriter out, PrintWriter err) throws Exception {
        int seconds = durationSeconds > 0 ? durationSeconds : BackingBench.SUSTAINED_SECONDS;
        java.util.List<io.blockcache.bench.SustainedFioRun.Result> results = BenchWorkDir.run(dir,
                "bench backing --sustained", err,
                (workDir, progress) -> new BackingBench(workDir, progress).runSustained(seconds));
        if (results == null) {
            return 1;
        }
        io.blockcache.bench.SustainedFioRun.report(results, json, out, err, "bench backing",
                "Sustained writes over the slow backing: dirty data and buckets in use",
                chart.resolveSibling("backing-sustained.png"));
        return 0;
    }
}

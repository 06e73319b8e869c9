package io.blockcache.cli;

import io.blockcache.bench.NbdBench;
import io.blockcache.bench.NbdBenchReport;
import io.blockcache.bench.NbdBenchResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache bench nbd}: fio's nbd engine against blockcache serve, nbdkit's file plugin and qemu-nbd in
 * one run (see {@link NbdBench}). Needs {@code fio}, {@code nbdkit} and {@code qemu-nbd} on the PATH. Exit 0 when
 * every cell was measured, 1 when a server or fio failed.
 */
@Command(name = "nbd", mixinStandardHelpOptions = true,
        description = {"Benchmark NBD servers side by side with fio's nbd engine: blockcache serve (write-back),",
                "nbdkit file and qemu-nbd; 4 KiB random reads of missed data and of data cached by 4 KiB, 64 KiB",
                "and 1 MiB writes, 4 KiB random writes (writeback running and paused), 1 MiB sequential writes,",
                "all at 32 in flight (1 x 32, and 4 connections x 8); IOPS, p99, server CPU per request, peak RSS."})
final class BenchNbdCommand implements Callable<Integer> {
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

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "/var/tmp",
            description = "Where the servers' files go (a fresh subdirectory, removed afterwards;"
                    + " default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--chart", paramLabel = "PNG", defaultValue = "docs/img/nbd-bench.png",
            description = "Where to write the bar chart of ratios vs nbdkit (default: ${DEFAULT-VALUE}).")
    private Path chart;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<NbdBenchResult> results = BenchWorkDir.run(dir, "bench nbd", err,
                (workDir, progress) -> new NbdBench(workDir, quick, baseline, progress).run());
        if (results == null) {
            return 1;
        }
        if (json) {
            results.forEach(result -> out.println(result.toJsonLine()));
        } else {
            out.print(NbdBenchReport.table(results));
        }
        out.flush();
        NbdBenchReport.writeChart(results, chart);
        err.println("bench nbd: chart written to " + chart);
        err.flush();
        return 0;
    }
}

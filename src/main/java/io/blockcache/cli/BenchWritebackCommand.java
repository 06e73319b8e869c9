package io.blockcache.cli;

import io.blockcache.bench.WritebackBench;
import io.blockcache.bench.WritebackReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache bench writeback [--quick] [--json] [--charts DIR] [--seed N] [--object-store | --sustained]}:
 * the writeback experiments
 * in simulated time (idle drain, busy, block-size sweep, bursts), modern vs classic and the order
 * policies in the same run. Prints Markdown tables, or with {@code --json} one JSON object per row.
 */
@Command(name = "writeback", description = "Writeback experiments in simulated time on the HDD/SSD models.",
        mixinStandardHelpOptions = true)
final class BenchWritebackCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "Small sets: finishes in under a minute (CI).")
    private boolean quick;

    @Option(names = "--json", description = "Print one JSON object per row instead of tables.")
    private boolean json;

    @Option(names = "--charts", paramLabel = "DIR", description = "Write PNG charts into DIR (e.g. docs/img).")
    private Path charts;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of every dirty set (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--object-store", description = "Run only the object-store experiment (docs/BENCHMARKS.md "
            + "\"Writeback: object store\").")
    private boolean objectStoreOnly;

    @Option(names = "--sustained", description = "Run only the sustained-overload experiment (docs/WRITEBACK.md "
            + "\"Sustained writes\").")
    private boolean sustainedOnly;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        java.util.function.Consumer<String> progress = step -> {
            err.println("bench writeback: " + step + "...");
            err.flush();
        };
        WritebackBench bench = objectStoreOnly ? WritebackBench.runObjectStore(quick, seed, progress)
                : sustainedOnly ? WritebackBench.runSustained(quick, seed, progress)
                : WritebackBench.run(quick, seed, progress);
        if (json) {
            bench.jsonLines().forEach(out::println);
        } else {
            out.print(objectStoreOnly ? WritebackReport.objectStoreTable(bench)
                    : sustainedOnly ? WritebackReport.sustainedTable(bench) : WritebackReport.tables(bench));
        }
        out.flush();
        if (charts != null && sustainedOnly) {
            WritebackReport.sustainedChart(bench, charts);
        } else if (charts != null && !objectStoreOnly) {
            WritebackReport.charts(bench, charts);
        }
        if (charts != null) {
            WritebackReport.objectStoreCharts(bench, charts);
        }
        return 0;
    }
}

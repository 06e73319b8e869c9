package io.blockcache.cli;

import io.blockcache.bench.HitRatioBench;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache bench hitratio [--json] [--trace FILE --format F] [--cache-size S]}: block traces replayed
 * through the engine in simulated time and, at the same usable capacity, through LRU, CLOCK, ARC, 2Q, S3-FIFO,
 * SIEVE, W-TinyLFU and Belady's optimum. See docs/BENCHMARKS.md, "Hit ratio", and docs/CACHING.md.
 */
@Command(name = "hitratio", mixinStandardHelpOptions = true,
        description = {"Read miss ratios of the engine (simulated time) and of classic policies on block traces, at "
                + "1, 5, 10 and 25 %% of each trace's working set.", "Without --trace: the synthetic mixes and the "
                + "samples bundled in --traces-dir."})
final class BenchHitRatioCommand implements Callable<Integer> {
    @Option(names = "--json", description = "one JSON object per row instead of tables")
    private boolean json;

    @Option(names = "--trace", paramLabel = "FILE", description = "a trace file (.gz is decompressed)")
    private Path trace;

    @Option(names = "--format", paramLabel = "F", defaultValue = "msr",
            description = "the trace's format: msr, cloudphysics, systor, blocks (default: ${DEFAULT-VALUE})")
    private String format;

    @Option(names = "--cache-size", paramLabel = "S", description = "one usable cache size (e.g. 64M) instead of "
            + "the four shares of the working set")
    private String cacheSize;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "200000",
            description = "replay at most the first N requests of each trace (default: ${DEFAULT-VALUE})")
    private int requests;

    @Option(names = "--traces-dir", paramLabel = "DIR", defaultValue = "traces",
            description = "where the bundled samples are (default: ${DEFAULT-VALUE})")
    private Path tracesDir;

    @Option(names = "--images", paramLabel = "DIR", defaultValue = "docs/img",
            description = "where the PNG charts go (default: ${DEFAULT-VALUE}); 'none' for no charts")
    private Path images;

    @Option(names = "--only", paramLabel = "NAME", description = "run only the trace of this name (e.g. zipf-1.0)")
    private String only;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the synthetic traces and the format "
            + "(default: ${DEFAULT-VALUE})")
    private long seed;

    @Override
    public Integer call() throws Exception {
        if (requests < 1) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--requests must be at least 1: " + requests);
        }
        List<HitRatioBench.Named> traces = trace != null ? List.of(new HitRatioBench.Named(trace, format, requests))
                : HitRatioBench.defaults(tracesDir, requests);
        long bytes = cacheSize == null ? 0 : ByteSizes.parse(cacheSize);
        Path charts = images.toString().equals("none") ? null : images;
        HitRatioBench.run(new HitRatioBench.Plan(traces, bytes, charts, seed, only), json, System.out, System.err);
        return 0;
    }
}

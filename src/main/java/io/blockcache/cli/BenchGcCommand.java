package io.blockcache.cli;

import io.blockcache.bench.GcBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache bench gc [--quick] [--json]}: front-end latency during GC (real time, sliced vs unsliced vs
 * none) and a full cache over a slow HDD (simulated time). See docs/BENCHMARKS.md, section GC.
 */
@Command(name = "gc", mixinStandardHelpOptions = true,
        description = {"GC latency (real time, 10 M extents; sliced, unsliced, no-gc) and a full cache written 3x "
                + "over a simulated HDD.", "Give the JVM room: BLOCKCACHE_JAVA_OPTS='-XX:+UseZGC -Xmx8g'."})
final class BenchGcCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "1 M extents and a 32 MiB cache: under a minute")
    private boolean quick;

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    private boolean json;

    @Option(names = "--images", paramLabel = "DIR", description = "where the PNG charts go (default: ${DEFAULT-VALUE})",
            defaultValue = "docs/img")
    private Path images;

    @Override
    public Integer call() throws Exception {
        GcBench.Plan plan = quick ? GcBench.Plan.quick(images) : GcBench.Plan.full(images);
        GcBench.run(plan, json, System.out, System.err);
        return 0;
    }
}

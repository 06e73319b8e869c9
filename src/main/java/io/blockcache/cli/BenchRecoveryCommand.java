package io.blockcache.cli;

import io.blockcache.bench.RecoveryBench;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache bench recovery [--quick] [--json] [--dir DIR]}: seconds to serving after a crash and after a
 * clean stop for a cache of 10 M extents, and how the replay was sliced. See docs/BENCHMARKS.md, section Recovery.
 */
@Command(name = "recovery", mixinStandardHelpOptions = true,
        description = {"Recovery time of a cache of 10 M dirty 4 KiB extents (sparse files, filled through the "
                + "engine's journal and checkpoints), after a crash and after a clean stop.",
                "Give the JVM room: BLOCKCACHE_JAVA_OPTS='-XX:+UseZGC -Xmx8g'."})
final class BenchRecoveryCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "1 M extents: about a minute")
    private boolean quick;

    @Option(names = "--json", description = "one JSON object per line instead of a table")
    private boolean json;

    @Option(names = "--dir", paramLabel = "DIR", description = "where the sparse image files go, deleted at the end"
            + " (default: ${DEFAULT-VALUE})", defaultValue = "/var/tmp")
    private Path dir;

    @Override
    public Integer call() throws Exception {
        RecoveryBench.Plan plan = quick ? RecoveryBench.Plan.quick(dir) : RecoveryBench.Plan.full(dir);
        RecoveryBench.run(plan, json, System.out, System.err);
        return 0;
    }
}

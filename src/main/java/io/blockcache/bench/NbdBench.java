package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code bench nbd}: blockcache serve, nbdkit's file plugin and qemu-nbd, all running at once on files in one
 * directory, each driven by fio's nbd engine through the same three workloads.
 *
 * <p>Order, chosen because the machine is shared and noisy: all servers start, each gets its fio region
 * written once (so random reads read data, not holes), then each workload runs on every server in turn before
 * the next workload starts. Neighbouring cells were measured seconds apart, which is what makes their ratios
 * meaningful even when absolute numbers drift. Writes come before reads for the same reason as the fill.
 */
public final class NbdBench {
    /** The fio region (bytes at the start of the export that every job uses), full and quick runs. */
    static final long REGION_BYTES_FULL = 1L << 30;
    static final long REGION_BYTES_QUICK = 256L << 20;
    /** Per-job ramp and measured runtime, seconds: the "10 s each in full, 3 s with --quick". */
    static final int RAMP_SECONDS_FULL = 2;
    static final int RUNTIME_SECONDS_FULL = 10;
    static final int RAMP_SECONDS_QUICK = 1;
    static final int RUNTIME_SECONDS_QUICK = 3;
    /** Workloads in the order they run: writes first, then reads of what they wrote. */
    static final List<NbdWorkload> ORDER = List.of(NbdWorkload.SEQWRITE1M, NbdWorkload.RANDWRITE4K,
            NbdWorkload.RANDREAD4K);

    private final Path workDir;
    private final boolean quick;
    private final Consumer<String> progress;

    /**
     * A benchmark that keeps its files in {@code workDir} (which must exist, on the disk to measure) and reports
     * each step to {@code progress} (human-readable lines, e.g. to standard error).
     */
    public NbdBench(Path workDir, boolean quick, Consumer<String> progress) {
        this.workDir = workDir;
        this.quick = quick;
        this.progress = progress;
    }

    /** Runs everything and returns one result per server and workload, in run order. */
    public List<NbdBenchResult> run() throws IOException, InterruptedException {
        long regionBytes = quick ? REGION_BYTES_QUICK : REGION_BYTES_FULL;
        int rampSeconds = quick ? RAMP_SECONDS_QUICK : RAMP_SECONDS_FULL;
        int runtimeSeconds = quick ? RUNTIME_SECONDS_QUICK : RUNTIME_SECONDS_FULL;
        NbdBenchServers servers = new NbdBenchServers(workDir);
        FioRunner fio = new FioRunner(workDir);
        List<NbdBenchResult> results = new ArrayList<>();
        try (NbdServerProcess blockcache = servers.blockcache();
             NbdServerProcess nbdkit = servers.nbdkitFile();
             NbdServerProcess qemu = servers.qemuNbd()) {
            List<NbdServerProcess> all = List.of(blockcache, nbdkit, qemu);
            for (NbdServerProcess server : all) {
                progress.accept(server.name() + ": " + String.join(" ", server.command()));
                progress.accept(server.name() + ": filling " + (regionBytes >> 20) + " MiB");
                fio.fill(server.uri(), regionBytes);
            }
            for (NbdWorkload workload : ORDER) {
                for (NbdServerProcess server : all) {
                    progress.accept(server.name() + ": " + workload.label() + " (" + rampSeconds + " s ramp + "
                            + runtimeSeconds + " s)");
                    results.add(fio.measure(server.name(), server.uri(), workload, regionBytes, rampSeconds,
                            runtimeSeconds));
                }
            }
        }
        return results;
    }
}

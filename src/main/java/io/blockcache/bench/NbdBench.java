package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code bench nbd}: blockcache serve, nbdkit's file plugin and qemu-nbd (and optionally a second blockcache
 * build, the baseline), all running at once on files in one directory, each driven by fio's nbd engine through
 * the same rows ({@link NbdWorkload}).
 *
 * <p>Order, chosen because the machine is shared and noisy: all servers start; each gets its regions
 * ({@link NbdRegion}) prepared the same way — MISS written sequentially, the three hit regions with random writes
 * of 4 KiB, 64 KiB and 1 MiB (blockcache with its sequential cutoff and congestion bypass off, so every one is
 * cached, then drained so the data is clean-cached) — then each row runs on every server in turn before the next
 * row starts, so neighbouring cells were measured seconds apart, which is what makes their ratios meaningful even
 * when absolute numbers drift. Reads come before writes so that no write changes what a read row reads.
 *
 * <p>Every cell starts on a settled page cache ({@link PageCacheSettle}): dirty pages another server left behind
 * are written out before it, not during it.
 *
 * <p>Around the row {@link NbdWorkload#RANDWRITE4K_WB_PAUSED} a blockcache server has writeback paused, and is
 * drained afterwards so the rows after it start without a backlog; the other servers run the same job again
 * (which shows their run-to-run spread).
 */
public final class NbdBench {
    /** Per-job ramp and measured runtime, seconds: the "10 s each in full, 3 s with --quick". */
    static final int RAMP_SECONDS_FULL = 2;
    static final int RUNTIME_SECONDS_FULL = 10;
    static final int RAMP_SECONDS_QUICK = 1;
    static final int RUNTIME_SECONDS_QUICK = 3;
    /** Regions prepared before the rows, in this order. */
    static final List<NbdRegion> FILLS = List.of(NbdRegion.MISS, NbdRegion.HIT4K, NbdRegion.HIT64K,
            NbdRegion.HIT1M);
    /**
     * Bypass knobs switched off (0) while the hit regions are filled, so that every fill write is cached, and the
     * defaults (BypassSettings.defaults) they are set back to afterwards. Why congestion too: on a loaded machine
     * writeback's cache reads pass the 2 ms read threshold and whole fills went around the cache (measured: all
     * of a 256 MiB 64 KiB fill), which turned the hit rows into reads of 4 KiB read-miss fills.
     */
    private static final Map<String, String> FILL_BYPASS_DEFAULTS = new LinkedHashMap<>(Map.of(
            "volume.NAME.sequential_cutoff_bytes", Long.toString(4L << 20),
            "volume.NAME.congested_read_threshold_us", "2000",
            "volume.NAME.congested_write_threshold_us", "20000"));

    private final Path workDir;
    private final boolean quick;
    private final String baselineClassPath;
    private final Consumer<String> progress;

    /**
     * A benchmark that keeps its files in {@code workDir} (which must exist, on the disk to measure) and reports
     * each step to {@code progress} (human-readable lines, e.g. to standard error).
     *
     * @param baselineClassPath class path of another blockcache build to run side by side as
     *     {@code blockcache-base}, or null
     */
    public NbdBench(Path workDir, boolean quick, String baselineClassPath, Consumer<String> progress) {
        this.workDir = workDir;
        this.quick = quick;
        this.baselineClassPath = baselineClassPath;
        this.progress = progress;
    }

    /** Runs everything and returns one result per server and workload, in run order. */
    public List<NbdBenchResult> run() throws IOException, InterruptedException {
        int rampSeconds = quick ? RAMP_SECONDS_QUICK : RAMP_SECONDS_FULL;
        int runtimeSeconds = quick ? RUNTIME_SECONDS_QUICK : RUNTIME_SECONDS_FULL;
        NbdBenchServers servers = new NbdBenchServers(workDir);
        FioRunner fio = new FioRunner(workDir);
        List<NbdBenchResult> results = new ArrayList<>();
        List<NbdServerProcess> all = new ArrayList<>();
        try {
            if (baselineClassPath != null) {
                all.add(servers.blockcache("blockcache-base", baselineClassPath));
            }
            all.add(servers.blockcache());
            all.add(servers.nbdkitFile());
            all.add(servers.qemuNbd());
            for (NbdServerProcess server : all) {
                progress.accept(server.name() + ": " + String.join(" ", server.command()));
                prepare(fio, server);
            }
            for (NbdWorkload workload : NbdWorkload.values()) {
                for (NbdServerProcess server : all) {
                    progress.accept(server.name() + ": " + workload.label() + " (" + rampSeconds + " s ramp + "
                            + runtimeSeconds + " s)");
                    ServeAdmin admin = server.admin();
                    boolean pause = workload == NbdWorkload.RANDWRITE4K_WB_PAUSED && admin != null;
                    if (pause) {
                        admin.set("writeback.NAME.running", "false");
                    }
                    progress.accept(server.name() + ": " + PageCacheSettle.settle());
                    results.add(fio.measure(server, workload, quick, rampSeconds, runtimeSeconds));
                    if (pause) {
                        admin.set("writeback.NAME.running", "true");
                        progress.accept(server.name() + ": draining what the paused row left dirty");
                        admin.drain();
                    }
                }
            }
        } finally {
            for (NbdServerProcess server : all) {
                server.close();
            }
        }
        return results;
    }

    /** The sustained row's duration by default: the "at least 60 s". */
    public static final int SUSTAINED_SECONDS = 60;
    /** The sustained row's region: half the cache, from the export's start (docs/WRITEBACK.md "Sustained writes"). */
    static final long SUSTAINED_REGION_BYTES = NbdBenchServers.CACHE_BYTES / 2;

    /**
     * The row {@code randwrite4k-sustained} alone: on blockcache and nbdkit's file plugin, the region (half the
     * cache) filled once with 4 KiB random writes (blockcache then drained), then fio's 4 KiB random writes at QD32
     * for {@code durationSeconds} with writeback running; IOPS per 2 s, p99, and for blockcache the dirty share over
     * time, writes held and sent around.
     */
    public List<SustainedFioRun.Result> runSustained(int durationSeconds) throws IOException, InterruptedException {
        NbdBenchServers servers = new NbdBenchServers(workDir);
        FioRunner fio = new FioRunner(workDir);
        List<SustainedFioRun.Result> results = new ArrayList<>();
        List<NbdServerProcess> all = new ArrayList<>();
        try {
            all.add(servers.blockcache());
            all.add(servers.nbdkitFile());
            for (NbdServerProcess server : all) {
                progress.accept(server.name() + ": filling " + (SUSTAINED_REGION_BYTES >> 20)
                        + " MiB with 4 KiB random writes");
                fio.fillRandom(server.uri(), 0, SUSTAINED_REGION_BYTES, 4096);
                if (server.admin() != null) {
                    server.admin().drain();
                }
                progress.accept(server.name() + ": " + PageCacheSettle.settle());
                progress.accept(server.name() + ": randwrite4k-sustained, " + durationSeconds + " s");
                results.add(SustainedFioRun.run(fio, workDir, server, "randwrite4k-sustained", 0,
                        SUSTAINED_REGION_BYTES, 32, durationSeconds));
            }
        } finally {
            for (NbdServerProcess server : all) {
                server.close();
            }
        }
        return results;
    }

    private void prepare(FioRunner fio, NbdServerProcess server) throws IOException, InterruptedException {
        ServeAdmin admin = server.admin();
        for (NbdRegion region : FILLS) {
            progress.accept(server.name() + ": filling " + region + " (" + (region.lengthBytes(quick) >> 20)
                    + " MiB, " + (region.fillBlockBytes() >> 10) + " KiB "
                    + (region == NbdRegion.MISS ? "sequential" : "random") + " writes)");
            boolean cacheAll = admin != null && region != NbdRegion.MISS;
            if (cacheAll) {
                for (String knob : FILL_BYPASS_DEFAULTS.keySet()) {
                    admin.set(knob, "0");
                }
            }
            fio.fill(server.uri(), region, quick);
            if (cacheAll) {
                for (Map.Entry<String, String> knob : FILL_BYPASS_DEFAULTS.entrySet()) {
                    admin.set(knob.getKey(), knob.getValue());
                }
            }
            if (admin != null) {
                admin.drain();
            }
        }
    }
}

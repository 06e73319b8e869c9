package io.blockcache.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code bench backing} (NBD rows): fio's 4 KiB random writes, then random reads, over a working set
 * that fits in every cache, against three setups in front of the same kind of slow backing, {@code nbdkit memory}
 * behind its {@code delay} filter ({@link #DELAY_MS} ms per read and write), served two ways ({@link SlowBacking}): as
 * a disk answering one request at a time (the "4 ms per request") and as a store answering every request at
 * once. The setups, each over each backing:
 * <ul>
 *   <li>{@code blockcache}: {@code serve} (write-back) with {@code --backing default=nbd://...} on it;
 *   <li>{@code slow-backing}: fio straight at the slow backing;
 *   <li>{@code nbdkit-cache}: {@code nbdkit --filter=cache nbd uri=...} (its cache filter, write-back mode, in a
 *       server of its own in front of the slow backing's, as blockcache is).
 * </ul>
 * After the write burst it times how long each takes to be clean: blockcache drains (every dirty block written back
 * and the backing flushed); the others get one NBD FLUSH ({@code nbdsh}), which makes nbdkit's cache filter write
 * its dirty blocks back. Each setup gets a fresh slow backing.
 *
 * <p>The S3 row, {@code blockcache-s3}: the same fio jobs against {@code serve} over an {@code s3://} backing on
 * S3Proxy ({@link S3ProxyServer}, in-memory store, on this machine: no network latency, so it shows the cache's
 * front end and the time to write the burst back as chunk PUTs, not what a remote store costs). Skipped, with a
 * line, when the S3Proxy jar is not in the local Maven repository. Short by design: about four minutes in all.
 */
public final class BackingBench {
    /** The slow backing's delay per read and per write. */
    static final int DELAY_MS = 4;
    /** Size of each slow backing (nbdkit memory: sparse, costs what is written). */
    static final long BACKING_BYTES = 256L << 20;
    /** fio's working set: fits in every cache; small enough that nbdkit's flush of it ends within a minute. */
    static final long WORKING_SET_BYTES = 16L << 20;
    /** blockcache's cache file. */
    static final long CACHE_BYTES = 256L << 20;
    static final int BLOCK_BYTES = 4096;
    /** Requests in flight: a busy client; the bare backing then runs nbdkit's 16 threads in parallel. */
    static final int IODEPTH = 16;
    /** Seconds per fio job, measured. */
    static final int RUNTIME_SECONDS = 10;
    /** Seconds of each fio job before measuring starts, the same for every setup (blockcache's JIT warms up). */
    static final int RAMP_SECONDS = 3;
    /** Longest wait for an nbdsh flush (nbdkit's cache filter writes its dirty blocks back one at a time). */
    private static final Duration FLUSH_WAIT_MAX = Duration.ofMinutes(5);

    private final Path workDir;
    private final Consumer<String> progress;
    private final FioRunner fio;

    /** A bench writing its files under {@code workDir} and telling {@code progress} what it is doing. */
    public BackingBench(Path workDir, Consumer<String> progress) {
        this.workDir = workDir;
        this.progress = progress;
        this.fio = new FioRunner(workDir);
    }

    /** Runs the three setups over each slow backing, then the S3 row; returns their rows (writes, then reads). */
    public List<BackingBenchResult> run() throws IOException, InterruptedException {
        List<BackingBenchResult> results = new ArrayList<>();
        for (SlowBacking kind : SlowBacking.values()) {
            try (NbdServerProcess slow = slowBacking("slow-for-blockcache", kind);
                    NbdServerProcess cache = blockcache(slow, kind)) {
                results.addAll(measure(cache, kind.label(), true, () -> cache.admin().drain()));
            }
            try (NbdServerProcess slow = slowBacking("slow-backing", kind)) {
                results.addAll(measure(slow, kind.label(), true, () -> flush(slow)));
            }
            try (NbdServerProcess slow = slowBacking("slow-for-nbdkit-cache", kind);
                    NbdServerProcess cached = nbdkitCache(slow, kind)) {
                results.addAll(measure(cached, kind.label(), false, () -> flush(cached)));
            }
        }
        try {
            S3ProxyServer.jar();
        } catch (IOException missing) {
            progress.accept(S3_SETUP + ": skipped: " + missing.getMessage());
            return results;
        }
        try (S3ProxyServer s3 = S3ProxyServer.start(workDir); NbdServerProcess cache = blockcacheOverS3(s3)) {
            results.addAll(measure(cache, S3_BACKING, true, () -> cache.admin().drain()));
        }
        return results;
    }

    /** The sustained rows' duration by default: the "at least 3 minutes". */
    public static final int SUSTAINED_SECONDS = 180;
    /**
     * Our dirty limit on the sustained rows: the write-back cutoff's 40 % of the cache, above which writes go around
     * it (docs/GC.md); nbdkit's cache filter gets it as its {@code cache-max-size}.
     */
    static final long DIRTY_LIMIT_BYTES = CACHE_BYTES * 40 / 100 / BLOCK_BYTES * BLOCK_BYTES;

    /**
     * The sustained rows (docs/WRITEBACK.md "Sustained writes"), over the slow backing that answers one request at a
     * time: blockcache and nbdkit's cache filter ({@code cache-max-size} = our dirty limit), each taking 4 KiB random
     * writes at iodepth {@link #IODEPTH} for {@code durationSeconds} over twice the dirty limit; then blockcache's
     * idle drain of what is dirty, whose rate is what cleaning can reach on that backing (a row {@code idle-drain}
     * with {@code iops} = 4 KiB blocks cleaned per second).
     */
    public List<SustainedFioRun.Result> runSustained(int durationSeconds) throws IOException, InterruptedException {
        List<SustainedFioRun.Result> results = new ArrayList<>();
        SlowBacking kind = SlowBacking.DISK;
        long region = 2 * DIRTY_LIMIT_BYTES;
        try (NbdServerProcess slow = slowBacking("slow-for-blockcache", kind);
                NbdServerProcess cache = blockcache(slow, kind)) {
            progress.accept(cache.name() + " over " + kind.label() + ": sustained 4 KiB random writes, "
                    + durationSeconds + " s over " + (region >> 20) + " MiB");
            results.add(SustainedFioRun.run(fio, workDir, cache, "randwrite4k-sustained", 0, region, IODEPTH,
                    durationSeconds));
            double dirtyBytes = cache.admin().dirtyBytes();
            progress.accept(cache.name() + ": idle drain of " + Math.round(dirtyBytes / (1 << 20)) + " MiB");
            long startNs = System.nanoTime();
            cache.admin().drain();
            double seconds = (System.nanoTime() - startNs) / 1e9;
            results.add(new SustainedFioRun.Result(cache.name(), "idle-drain", dirtyBytes / BLOCK_BYTES / seconds,
                    Double.NaN, (long) (dirtyBytes / BLOCK_BYTES), new double[0], new Series(cache.name()),
                    new Series(cache.name()), -1, -1));
        }
        try (NbdServerProcess slow = slowBacking("slow-for-nbdkit-cache", kind);
                NbdServerProcess cached = nbdkitCache(slow, kind, List.of("cache-max-size=" + DIRTY_LIMIT_BYTES))) {
            progress.accept(cached.name() + " over " + kind.label() + ": sustained 4 KiB random writes, "
                    + durationSeconds + " s");
            results.add(SustainedFioRun.run(fio, workDir, cached, "randwrite4k-sustained", 0, region, IODEPTH,
                    durationSeconds));
        }
        return results;
    }

    /** The S3 row's setup name. */
    static final String S3_SETUP = "blockcache-s3";
    /** The S3 row's backing. */
    static final String S3_BACKING = "s3proxy";

    /** How a setup gets clean after the burst. */
    private interface Cleaner {
        void clean() throws IOException, InterruptedException;
    }

    private List<BackingBenchResult> measure(NbdServerProcess server, String backing, boolean survivesKill9,
                                             Cleaner cleaner) throws IOException, InterruptedException {
        progress.accept(server.name() + " over " + backing + ": 4 KiB random writes, " + RAMP_SECONDS + " + "
                + RUNTIME_SECONDS + " s");
        long aroundBefore = aroundSectors(server);
        FioJson.Section writes = fio.run(server.uri(), "randwrite4k", "randwrite", BLOCK_BYTES, IODEPTH, 0,
                WORKING_SET_BYTES, RAMP_SECONDS, RUNTIME_SECONDS);
        double writesAroundMiB = aroundMiB(server, aroundBefore);
        progress.accept(server.name() + ": waiting until clean");
        long startNs = System.nanoTime();
        cleaner.clean();
        double cleanSeconds = (System.nanoTime() - startNs) / 1e9;
        progress.accept(server.name() + ": 4 KiB random reads, " + RAMP_SECONDS + " + " + RUNTIME_SECONDS + " s");
        long readsBefore = aroundSectors(server);
        FioJson.Section reads = fio.run(server.uri(), "randread4k", "randread", BLOCK_BYTES, IODEPTH, 0,
                WORKING_SET_BYTES, RAMP_SECONDS, RUNTIME_SECONDS);
        return List.of(
                new BackingBenchResult(server.name(), backing, "randwrite4k", writes.iops(), writes.p99Us(),
                        cleanSeconds, survivesKill9, writesAroundMiB),
                new BackingBenchResult(server.name(), backing, "randread4k", reads.iops(), reads.p99Us(), Double.NaN,
                        survivesKill9, aroundMiB(server, readsBefore)));
    }

    /**
     * blockcache's count of sectors written around the cache so far (-1 for a server without the admin API): the
     * writes of a burst that went straight to the slow backing are what a cache exists to avoid.
     */
    private static long aroundSectors(NbdServerProcess server) throws IOException, InterruptedException {
        return server.admin() == null ? -1 : server.admin().bypassedSectors();
    }

    private static double aroundMiB(NbdServerProcess server, long before) throws IOException, InterruptedException {
        return before < 0 ? Double.NaN : (aroundSectors(server) - before) * 512.0 / (1 << 20);
    }

    /** {@code nbdkit} serving {@code kind} of slow backing on a free port. */
    private NbdServerProcess slowBacking(String name, SlowBacking kind) throws IOException, InterruptedException {
        int port = NbdServerProcess.freePort();
        List<String> command = new ArrayList<>(nbdkit(port));
        command.addAll(kind.nbdkitArgs(BACKING_BYTES, DELAY_MS));
        return NbdServerProcess.start(name, command, port, "", workDir.resolve(name + "-" + kind.label() + ".log"));
    }

    /** {@code nbdkit --filter=cache nbd uri=SLOW}: nbdkit's cache filter in a server of its own, like blockcache. */
    private NbdServerProcess nbdkitCache(NbdServerProcess slow, SlowBacking kind)
            throws IOException, InterruptedException {
        return nbdkitCache(slow, kind, List.of());
    }

    /** As the other, with {@code filterArgs} for the cache filter (e.g. {@code cache-max-size=SIZE}). */
    private NbdServerProcess nbdkitCache(NbdServerProcess slow, SlowBacking kind, List<String> filterArgs)
            throws IOException, InterruptedException {
        int port = NbdServerProcess.freePort();
        List<String> command = new ArrayList<>(nbdkit(port));
        command.addAll(List.of("--filter=cache", "nbd", "uri=" + slow.uri()));
        command.addAll(filterArgs);
        return NbdServerProcess.start("nbdkit-cache", command, port, "",
                workDir.resolve("nbdkit-cache-" + kind.label() + ".log"));
    }

    private static List<String> nbdkit(int port) {
        return List.of("nbdkit", "--foreground", "--exit-with-parent", "--ipaddr", "127.0.0.1", "--port",
                Integer.toString(port));
    }

    /** blockcache serve of this build, write-back, over {@code slow} as an nbd:// backing, with files of its own. */
    private NbdServerProcess blockcache(NbdServerProcess slow, SlowBacking kind)
            throws IOException, InterruptedException {
        return serve("blockcache", "blockcache-" + kind.label(), slow.uri(), List.of(), List.of());
    }

    /** blockcache serve of this build, write-back, over a new volume in a bucket of {@code s3}. */
    private NbdServerProcess blockcacheOverS3(S3ProxyServer s3) throws IOException, InterruptedException {
        s3.createBucket("bench");
        // Credentials through the AWS SDK's system-property source, one of its default chain's.
        List<String> credentials = List.of("-Daws.accessKeyId=" + S3ProxyServer.IDENTITY,
                "-Daws.secretAccessKey=" + S3ProxyServer.CREDENTIAL, "-Daws.region=us-east-1");
        return serve(S3_SETUP, S3_SETUP, "s3://bench/vol", credentials,
                List.of("--s3-endpoint", s3.endpoint().toString(), "--backing-size", Long.toString(BACKING_BYTES)));
    }

    /** {@code serve} named {@code name} in the results; its data directory and cache file are named {@code files}. */
    private NbdServerProcess serve(String name, String files, String backingUri, List<String> jvmOptions,
                                   List<String> moreArgs) throws IOException, InterruptedException {
        int port = NbdServerProcess.freePort();
        String adminHostPort = "127.0.0.1:" + NbdServerProcess.freePort();
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.blockcache.cli.Main", "serve",
                "--data-dir", workDir.resolve(files).toString(),
                "--cache", workDir.resolve(files + "-cache.img").toString(),
                "--backing", "default=" + backingUri,
                "--cache-size", Long.toString(CACHE_BYTES),
                "--nbd-listen", "127.0.0.1:" + port,
                "--admin-listen", adminHostPort,
                "--mode", "writeback"));
        command.addAll(moreArgs);
        return NbdServerProcess.start(name, command, port, "default", workDir.resolve(files + ".log"),
                new ServeAdmin(adminHostPort, "default"));
    }

    /** One NBD FLUSH through libnbd's nbdsh; returns when the server acknowledged it. */
    private void flush(NbdServerProcess server) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("nbdsh", "-u", server.uri(), "-c", "h.flush()")
                .redirectErrorStream(true).redirectOutput(workDir.resolve("nbdsh.log").toFile());
        // nbdsh runs on python3 from the PATH; the one with libnbd's module is the system's.
        builder.environment().put("PATH", "/usr/bin:" + builder.environment().getOrDefault("PATH", ""));
        Process process = builder.start();
        if (!process.waitFor(FLUSH_WAIT_MAX.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("nbdsh flush of " + server.uri() + " did not finish within " + FLUSH_WAIT_MAX);
        }
        if (process.exitValue() != 0) {
            throw new IOException("nbdsh flush of " + server.uri() + " exited with " + process.exitValue());
        }
    }
}

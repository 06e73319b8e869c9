package io.blockcache.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Runs fio's {@code nbd} engine against an NBD URI and reads its JSON report; while a measured job runs, samples
 * the server's CPU time at the end of the ramp and at the end, so CPU per request covers the measured part only.
 */
final class FioRunner {
    /** Slack over ramp + runtime before a hung fio is killed (fio also connects, and fills take a while). */
    private static final long TIMEOUT_SLACK_SECONDS = 300;
    /** Requests in flight during fills. */
    private static final int FILL_IODEPTH = 32;

    private final Path workDir;

    FioRunner(Path workDir) {
        this.workDir = workDir;
    }

    /**
     * Writes {@code region} once with {@code bs = region.fillBlockBytes()}: sequentially for 1 MiB into MISS,
     * randomly (fio's random map: every block exactly once) otherwise.
     */
    void fill(String uri, NbdRegion region, boolean quick) throws IOException, InterruptedException {
        String rw = region == NbdRegion.MISS ? "write" : "randwrite";
        finish(start(List.of("--name=fill-" + region.name().toLowerCase(Locale.ROOT), "--rw=" + rw,
                "--bs=" + region.fillBlockBytes(), "--iodepth=" + FILL_IODEPTH,
                "--offset=" + region.offsetBytes(), "--size=" + region.lengthBytes(quick), "--uri=" + uri)), 0);
    }

    /**
     * Runs {@code workload} over its region for {@code runtimeSeconds} after a ramp of {@code rampSeconds} (not
     * counted), and returns what fio measured with the server's CPU time per request, its peak RSS and the host's
     * steal over the same measured part.
     */
    NbdBenchResult measure(NbdServerProcess server, NbdWorkload workload, boolean quick, int rampSeconds,
                           int runtimeSeconds) throws IOException, InterruptedException {
        NbdRegion region = workload.region();
        Running fio = start(List.of("--name=" + workload.label(), "--rw=" + workload.fioRw(),
                "--bs=" + workload.blockBytes(), "--numjobs=" + workload.connections(), "--group_reporting=1",
                "--iodepth=" + workload.iodepth(), "--offset=" + region.offsetBytes(),
                "--size=" + region.lengthBytes(quick), "--time_based=1", "--ramp_time=" + rampSeconds,
                "--runtime=" + runtimeSeconds, "--randrepeat=1", "--norandommap=1", "--uri=" + server.uri()));
        fio.process().waitFor(rampSeconds, TimeUnit.SECONDS); // the ramp: fio connects in milliseconds
        long cpuBeforeNs = server.meter().cpuNs();
        HostSteal.Sample stealBefore = HostSteal.sample();
        String json = finish(fio, rampSeconds + runtimeSeconds);
        long cpuNs = server.meter().cpuNs() - cpuBeforeNs;
        double stealPercent = HostSteal.percent(stealBefore, HostSteal.sample());
        FioJson.Section section = FioJson.parse(json, workload);
        double cpuUsPerRequest = section.requests() > 0 ? cpuNs / 1000.0 / section.requests() : Double.NaN;
        return new NbdBenchResult(server.name(), workload, section.iops(), section.mibPerSecond(),
                section.p99Us(), cpuUsPerRequest, server.meter().peakRssBytes(), stealPercent);
    }

    /**
     * Runs one time-based job of {@code rw} ({@code randwrite}, {@code randread}) with {@code blockBytes} blocks at
     * {@code iodepth} over {@code [offsetBytes, offsetBytes + lengthBytes)} of {@code uri} for {@code runtimeSeconds}
     * after a ramp of {@code rampSeconds} (not counted: a JVM server compiles its hot path meanwhile) and returns
     * fio's numbers for it.
     */
    FioJson.Section run(String uri, String name, String rw, int blockBytes, int iodepth, long offsetBytes,
                        long lengthBytes, int rampSeconds, int runtimeSeconds)
            throws IOException, InterruptedException {
        Running fio = start(List.of("--name=" + name, "--rw=" + rw, "--bs=" + blockBytes, "--iodepth=" + iodepth,
                "--offset=" + offsetBytes, "--size=" + lengthBytes, "--time_based=1", "--ramp_time=" + rampSeconds,
                "--runtime=" + runtimeSeconds, "--randrepeat=1", "--norandommap=1", "--uri=" + uri));
        return FioJson.parse(finish(fio, rampSeconds + runtimeSeconds), rw.contains("read"));
    }

    /**
     * As {@link #run}, time-based without a ramp, logging IOPS averaged over {@code logAvgMs} windows to {@code
     * iopsLogPrefix}{@code _iops.1.log} (fio's {@code write_iops_log}); {@code during} runs on this thread while fio
     * runs (a sampler: it must return soon after fio ends, when {@code fioRunning} turns false).
     */
    FioJson.Section runLogged(String uri, String name, String rw, int blockBytes, int iodepth, long offsetBytes,
                              long lengthBytes, int runtimeSeconds, Path iopsLogPrefix, int logAvgMs,
                              java.util.function.Consumer<java.util.function.BooleanSupplier> during)
            throws IOException, InterruptedException {
        Running fio = start(List.of("--name=" + name, "--rw=" + rw, "--bs=" + blockBytes, "--iodepth=" + iodepth,
                "--offset=" + offsetBytes, "--size=" + lengthBytes, "--time_based=1", "--runtime=" + runtimeSeconds,
                "--randrepeat=1", "--norandommap=1", "--write_iops_log=" + iopsLogPrefix,
                "--log_avg_msec=" + logAvgMs, "--uri=" + uri));
        during.accept(fio.process()::isAlive);
        return FioJson.parse(finish(fio, runtimeSeconds), rw.contains("read"));
    }

    /** Fills {@code [offsetBytes, offsetBytes + lengthBytes)} of {@code uri} once with random writes of a block. */
    void fillRandom(String uri, long offsetBytes, long lengthBytes, int blockBytes)
            throws IOException, InterruptedException {
        finish(start(List.of("--name=fill-sustained", "--rw=randwrite", "--bs=" + blockBytes,
                "--iodepth=" + FILL_IODEPTH, "--offset=" + offsetBytes, "--size=" + lengthBytes, "--uri=" + uri)), 0);
    }

    /** A fio process, its command line and the file its report goes to. */
    private record Running(Process process, List<String> command, Path output) {
    }

    private Running start(List<String> jobArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of("fio", "--output-format=json", "--ioengine=nbd"));
        command.addAll(jobArgs);
        Path out = Files.createTempFile(workDir, "fio", ".json");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new Running(process, command, out);
    }

    private String finish(Running running, int expectedSeconds) throws IOException, InterruptedException {
        Process process = running.process();
        if (!process.waitFor(expectedSeconds + TIMEOUT_SLACK_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("fio did not finish in time: " + running.command());
        }
        String text = Files.readString(running.output(), StandardCharsets.UTF_8);
        Files.delete(running.output());
        if (process.exitValue() != 0) {
            throw new IOException("fio exited with " + process.exitValue() + ": " + running.command() + "\n" + text);
        }
        return text;
    }
}

package io.blockcache.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs fio's {@code nbd} engine (one job, one connection) against an NBD URI and reads its JSON report.
 */
final class FioRunner {
    /** Slack over ramp + runtime before a hung fio is killed (fio also connects, and fills take a while). */
    private static final long TIMEOUT_SLACK_SECONDS = 120;

    private final Path workDir;

    FioRunner(Path workDir) {
        this.workDir = workDir;
    }

    /** Writes the first {@code regionBytes} of the export once, 1 MiB sequential, so reads later find data. */
    void fill(String uri, long regionBytes) throws IOException, InterruptedException {
        run(List.of("--name=fill", "--rw=write", "--bs=1m", "--iodepth=" + NbdWorkload.IODEPTH,
                "--size=" + regionBytes, "--uri=" + uri), 0);
    }

    /**
     * Runs {@code workload} over the first {@code regionBytes} of the export for {@code runtimeSeconds} after a
     * ramp of {@code rampSeconds} (not counted), and returns what fio measured.
     */
    NbdBenchResult measure(String server, String uri, NbdWorkload workload, long regionBytes, int rampSeconds,
                           int runtimeSeconds) throws IOException, InterruptedException {
        String json = run(List.of("--name=" + workload.label(), "--rw=" + workload.fioRw(),
                "--bs=" + workload.blockBytes(), "--iodepth=" + NbdWorkload.IODEPTH, "--size=" + regionBytes,
                "--time_based=1", "--ramp_time=" + rampSeconds, "--runtime=" + runtimeSeconds,
                "--randrepeat=1", "--norandommap=1", "--uri=" + uri), rampSeconds + runtimeSeconds);
        return FioJson.parse(json, server, workload);
    }

    private String run(List<String> jobArgs, int expectedSeconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("fio", "--output-format=json", "--ioengine=nbd"));
        command.addAll(jobArgs);
        Path out = Files.createTempFile(workDir, "fio", ".json");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!process.waitFor(expectedSeconds + TIMEOUT_SLACK_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("fio did not finish in time: " + command);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        if (process.exitValue() != 0) {
            throw new IOException("fio exited with " + process.exitValue() + ": " + command + "\n" + text);
        }
        return text;
    }
}

package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drain job end to end on real {@code serve} processes and the real CLI: started capped, paused, resumed, carried
 * over a restart of the server, and finished clean.
 */
@Timeout(180)
class DrainJobRestartTest {
    private static final int DIRTY_BYTES = 8 << 20;
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    /** Bound on polling the status: far above the seconds the drain needs. */
    private static final Duration STATE_WAIT = Duration.ofSeconds(60);
    /** Large sequential writes must stay in the cache (dirty) rather than go around it. */
    private static final String KEEP_DIRTY = "knob.volume.default.sequential_cutoff_bytes=0\n";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private ExternalTool.Run cli(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                System.getProperty("java.class.path"), "io.blockcache.cli.Main"));
        command.addAll(List.of(args));
        return ExternalTool.run(dir, CLI_TIMEOUT, command);
    }

    private String status(ServeProcess serve) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + "/api/volumes/default/drain")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** Polls the drain status (one HTTP round trip apart, no sleeping) until it satisfies {@code condition}. */
    private String awaitStatus(ServeProcess serve, Predicate<String> condition, String what) throws Exception {
        long endNs = System.nanoTime() + STATE_WAIT.toNanos();
        String last = null;
        while (System.nanoTime() < endNs) {
            last = status(serve);
            if (condition.test(last)) {
                return last;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("drain never " + what + "; last status " + last + "\n--- serve\n" + serve.log());
    }

    @Test
    void aCappedDrainIsPausedResumedSurvivesARestartAndFinishes() throws Exception {
        // Proves the whole job: a 512 KiB/s drain of 8 MiB starts detached, pauses and resumes through the CLI; after
        // SIGTERM the saved file says running, the next serve says it resumes it, status shows it taken up, and the
        // CLI waits for it to end clean (exit 0) with nothing dirty.
        ExternalTool.require("nbdcopy");
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Path random = RandomFiles.write(dir.resolve("random.bin"), DIRTY_BYTES, 7);
        try (ServeProcess first = ServeProcess.start(data, "first", KEEP_DIRTY)) {
            ExternalTool.Run copy = ExternalTool.run(dir, CLI_TIMEOUT,
                    List.of("nbdcopy", "--flush", random.toString(), first.uri()));
            assertThat(copy.exitCode()).as(copy.describe()).isZero();
            String admin = first.adminHostPort();
            ExternalTool.Run started = cli("drain", "--volume", "default", "--rate-max", "512K/s", "--detach",
                    "--admin", admin);
            assertThat(started.exitCode()).as(started.describe()).isZero();
            assertThat(started.out()).startsWith("default: drain #1 running");
            awaitStatus(first, s -> !s.contains("\"writtenBackBytes\":0,"), "wrote anything");
            ExternalTool.Run paused = cli("drain", "pause", "--admin", admin);
            assertThat(paused.out()).as(paused.describe() + "\n--- serve\n" + first.log() + "\n--- status\n"
                    + status(first)).startsWith("default: drain #1 paused");
            assertThat(status(first)).contains("\"state\":\"paused\"");
            assertThat(Files.readString(data.resolve("drain-jobs.properties"))).contains("drain.default.state=paused",
                    "drain.default.rateMaxBytesPerSecond=524288");
            assertThat(cli("drain", "resume", "--admin", admin).out()).startsWith("default: drain #1 running");
            String running = status(first);
            assertThat(running).contains("\"state\":\"running\"", "\"rateCeilingBytesPerSecond\":524288");
            assertThat(running).doesNotContain("\"dirtyBytesLeft\":0,");
        } // SIGTERM: a clean stop, the job still running
        assertThat(Files.readString(data.resolve("drain-jobs.properties"))).contains("drain.default.state=running");
        try (ServeProcess second = ServeProcess.start(data, "second", KEEP_DIRTY)) {
            assertThat(second.log()).contains("blockcache serve: resuming the drain of \"default\", rate cap 524288"
                    + " B/s, ");
            assertThat(status(second)).contains("\"restored\":true", "\"rateMaxBytesPerSecond\":524288");
            ExternalTool.Run finished = cli("drain", "--volume", "default", "--admin", second.adminHostPort());
            assertThat(finished.exitCode()).as(finished.describe() + "\n--- serve\n" + second.log()).isZero();
            assertThat(finished.out()).startsWith("default: clean, ");
            assertThat(status(second)).contains("\"state\":\"done\"", "\"dirtyBytesLeft\":0,");
            ExternalTool.Run stats = cli("stats", "--json", "--admin", second.adminHostPort());
            assertThat(stats.out()).contains("\"dirtyBytes\":0,");
        }
        assertThat(Files.readString(data.resolve("drain-jobs.properties"))).contains("drain.default.state=done");
    }
}

package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@code blockcache serve} as a real process, so that signals and the shutdown hook are the real ones. */
class ServeProcessTest {
    private static final Pattern ADMIN_LINE = Pattern.compile("^admin: http://127\\.0\\.0\\.1:(\\d+) ");
    private static final long EXIT_WAIT_SECONDS = 60;

    @TempDir
    Path dir;

    private record Server(Process process, int adminPort, Path log) {
    }

    /** The command line of a serve process on this test's data directory. */
    private List<String> serveCommand() {
        String java = ProcessHandle.current().info().command().orElseThrow();
        return new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main", "serve", "--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "256M",
                "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"));
    }

    private Server start(String name) throws Exception {
        Path log = dir.resolve(name + ".err");
        Process process = new ProcessBuilder(serveCommand()).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) { // ends if the process dies before printing its banner
            Matcher admin = ADMIN_LINE.matcher(line);
            if (admin.find()) {
                return new Server(process, Integer.parseInt(admin.group(1)), log);
            }
        }
        process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
        throw new AssertionError("serve printed no admin address; stderr:\n" + Files.readString(log));
    }

    private static String stats(Server server) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.adminPort() + "/api/stats")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static int exitCode(Server server) throws Exception {
        assertThat(server.process().waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)).as("process ended").isTrue();
        return server.process().exitValue();
    }

    @Test
    void killMinusNineRecoversAndSigtermStopsCleanly() throws Exception {
        // Proves the signal paths: after SIGKILL the superblock is not clean and the next start recovers and
        // serves; SIGTERM then exits 0 with the superblock marked clean.
        Path cacheFile = dir.resolve("data").resolve("cache.img");
        Server first = start("first");
        assertThat(stats(first)).contains("\"name\":\"default\"");
        first.process().destroyForcibly(); // SIGKILL: no hook runs
        exitCode(first);
        assertThat(ServeFiles.superblock(cacheFile).cleanShutdown()).isFalse();

        Server second = start("second");
        assertThat(stats(second)).contains("\"name\":\"default\"");
        assertThat(Files.readString(second.log())).doesNotContain("formatting");
        second.process().destroy(); // SIGTERM
        assertThat(exitCode(second)).as(Files.readString(second.log())).isZero();
        assertThat(Files.readString(second.log())).contains("stopped cleanly");
        assertThat(ServeFiles.superblock(cacheFile).cleanShutdown()).isTrue();
    }

    @Test
    void aBackingFileDeletedUnderServeIsReportedItsDrainFailsAndTheNextStartRefuses() throws Exception {
        // Proves the real process finds a deleted backing file by itself: one log line, stats, a drain that fails
        // naming the file, a stop that does not claim clean, and a next start that refuses the missing file.
        Path backing = dir.resolve("data").resolve("backing.img");
        Server server = start("vanished");
        Files.delete(backing);
        String deleted = "backing file " + backing + " was deleted while open";
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!stats(server).contains(deleted) && System.nanoTime() < deadlineNs) {
            LockSupport.parkNanos(50_000_000L); // a poll interval: serve looks once a second
        }
        assertThat(stats(server)).contains("\"degraded\":\"" + deleted);

        HttpClient http = HttpClient.newHttpClient();
        URI drain = URI.create("http://127.0.0.1:" + server.adminPort() + "/api/volumes/default/drain");
        http.send(HttpRequest.newBuilder(drain).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        String job = http.send(HttpRequest.newBuilder(drain).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(job).contains("\"state\":\"failed\"").contains("drain stopped: " + deleted);

        server.process().destroy(); // SIGTERM
        exitCode(server);
        String log = Files.readString(server.log());
        assertThat(log.lines().filter(line -> line.contains(deleted) && line.contains("[event=device.degraded ")))
                .as(log).hasSize(1);
        assertThat(log.lines().filter(line -> line.contains(deleted))).as(log).hasSize(2)
                .anySatisfy(line -> assertThat(line).contains("[event=drain.failed level=error volume=default"));
        assertThat(log).contains("clean shutdown failed").contains("refused, the file " + backing);

        Server again = startExpectingFailure("again");
        assertThat(again.process().exitValue()).isNotZero();
        assertThat(Files.readString(again.log())).contains("backing file " + backing + " of export \"default\" is"
                + " missing");
    }

    /** Starts serve and waits for it to exit without serving (a refused start). */
    private Server startExpectingFailure(String name) throws Exception {
        Path log = dir.resolve(name + ".err");
        Process process = new ProcessBuilder(serveCommand()).redirectError(log.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Server server = new Server(process, 0, log);
        exitCode(server);
        return server;
    }
}

package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * libnbd's Python shell ({@code nbdsh}) running the scripts in {@code src/test/resources/io/blockcache/interop}:
 * each command's semantics, and the flush guarantees across connections and across a {@code kill -9}.
 */
@Timeout(120)
class NbdshInteropTest {
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @BeforeEach
    void tools() {
        ExternalTool.require("nbdsh");
    }

    @Test
    void flushFuaTrimWriteZeroesAndBlockStatusBehaveAsSpecified() throws Exception {
        // Proves FLUSH, FUA, TRIM, WRITE_ZEROES (plain, NO_HOLE, FAST_ZERO), BLOCK_STATUS on both contexts and
        // ENOSPC past the end, as libnbd sees them (commands.py asserts each step).
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve")) {
            ExternalTool.Run run = nbdsh(serve, "commands.py", List.of());
            assertThat(run.exitCode()).as(run.describe() + "\n--- serve\n" + serve.log()).isZero();
            assertThat(run.out()).contains("OK commands");
        }
    }

    @Test
    void requestsOf64MiBRoundTripThroughLibnbd() throws Exception {
        // Proves a real client's 64 MiB WRITE and READ (the reference tester's integrityhuge sizes) are served
        // while 32 MiB stays the advertised maximum (huge.py asserts each step).
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve", "", "80M")) {
            ExternalTool.Run run = nbdsh(serve, "huge.py", List.of());
            assertThat(run.exitCode()).as(run.describe() + "\n--- serve\n" + serve.log()).isZero();
            assertThat(run.out()).contains("OK huge");
        }
    }

    @Test
    void flushedAndFuaDataSurviveKillMinusNineIncludingAFlushOnAnotherConnection() throws Exception {
        // Proves durability contract rule 1 end to end: data flushed on its own connection, data written on one
        // connection and flushed on another (multi-conn), and FUA data all read back after SIGKILL and restart.
        Path data = dir.resolve("data");
        try (ServeProcess first = ServeProcess.start(data, "first")) {
            ExternalTool.Run write = nbdsh(first, "multiconn.py", List.of("phase = 'write'"));
            assertThat(write.exitCode()).as(write.describe()).isZero();
            assertThat(write.out()).contains("OK write");
            first.killMinusNine();
        }
        try (ServeProcess second = ServeProcess.start(data, "second")) {
            ExternalTool.Run check = nbdsh(second, "multiconn.py", List.of("phase = 'check'"));
            assertThat(check.exitCode()).as(check.describe() + "\n--- serve\n" + second.log()).isZero();
            assertThat(check.out()).contains("OK check");
            assertThat(second.log()).as("the restart recovered instead of formatting").doesNotContain("formatting");
        }
    }

    private ExternalTool.Run nbdsh(ServeProcess serve, String script, List<String> statements)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("nbdsh", "-n", "-c", "uri = '" + serve.uri() + "'"));
        for (String statement : statements) {
            command.add("-c");
            command.add(statement);
        }
        command.add("-c");
        command.add(resource(script));
        return ExternalTool.run(dir, SCRIPT_TIMEOUT, command);
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = NbdshInteropTest.class.getResourceAsStream(name)) {
            assertThat(in).as("test resource " + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

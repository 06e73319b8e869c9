package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve}'s log end to end: JSON lines with level and event, journal prefixes, a flood cut down. */
class ServeLogTest {
    private static final long EXIT_WAIT_SECONDS = 60;
    /** Clients that break the NBD handshake: more than both the NBD server's and the event log's share. */
    private static final int BAD_CLIENTS = 25;
    private static final Pattern PREFIXED = Pattern.compile("<([0-9])>(\\{.*\\})");

    @TempDir
    Path dir;
    private ServeRuntime runtime;

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.stop();
        }
    }

    @Test
    void aServeUnderTheJournalWritesPrefixedJsonLinesAndCutsAFloodWithASuppressedCount() throws Exception {
        // Proves, on a running serve with --log-format json and stderr as the journal: every line is <N>{json} with
        // N the level's syslog priority, a level and an event; 25 clients that break the NBD handshake give 10
        // nbd.handshake.failed lines, and the stop reports the rest as log.suppressed of nbd.handshake.failed.
        StringWriter err = new StringWriter();
        PrintWriter writer = new PrintWriter(err, true);
        EventLog log = new EventLog(writer, LogFormat.JSON, JournalPriority.of("1:2", "1:2"), System::nanoTime,
                Instant::now);
        runtime = ServeRuntime.start(ServeSettings.resolve("--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "64M", "--nbd-listen", "127.0.0.1:0", "--admin-listen",
                "127.0.0.1:0"), false, writer, log);
        for (int i = 0; i < BAD_CLIENTS; i++) {
            // The server logs the broken handshake before it closes the connection this call waits for.
            askForAnUnknownExport(runtime.nbdAddress().getPort());
        }
        runtime.stop();
        runtime = null;

        List<Map<?, ?>> events = new ArrayList<>();
        for (String line : err.toString().lines().toList()) {
            Matcher prefixed = PREFIXED.matcher(line);
            assertThat(prefixed.matches()).as("a prefixed JSON line: " + line).isTrue();
            Map<?, ?> event = (Map<?, ?>) JsonReader.parse(prefixed.group(2));
            String level = String.valueOf(event.get("level"));
            assertThat(prefixed.group(1)).as(line).isEqualTo(switch (level) {
                case "error" -> "3";
                case "warning" -> "4";
                case "info" -> "6";
                default -> throw new AssertionError("no such level: " + line);
            });
            assertThat(String.valueOf(event.get("event"))).as(line).matches("[a-z_]+(\\.[a-z_]+)+");
            events.add(event);
        }
        assertThat(events).filteredOn(e -> "host.file.created".equals(e.get("event"))).isNotEmpty();
        assertThat(events).filteredOn(e -> "host.format".equals(e.get("event"))).isNotEmpty();
        assertThat(events).filteredOn(e -> "nbd.handshake.failed".equals(e.get("event")))
                .hasSize(FloodLimit.LINES_PER_WINDOW_MAX)
                .allSatisfy(e -> assertThat(String.valueOf(e.get("message"))).contains("unknown export 'nope'"));
        List<Map<?, ?>> suppressed = events.stream().filter(e -> "log.suppressed".equals(e.get("event"))).toList();
        assertThat(suppressed).hasSize(1);
        assertThat(suppressed.get(0).get("of")).isEqualTo("nbd.handshake.failed");
        assertThat(((Number) suppressed.get(0).get("suppressed")).longValue()).isPositive();
    }

    @Test
    void aRefusedStartInJsonUnderTheJournalIsOneErrorObject() throws Exception {
        // Proves the real process and its flag: serve --log-format json refusing an address off loopback writes one
        // <3>{...} line with level error and event serve.start_failed when stderr is the journal, a bare object not.
        Path journal = dir.resolve("journal.err");
        Files.createFile(journal);
        String stream = JournalPriority.deviceAndInode(journal);
        String line = refusal(journal, stream).strip();
        assertThat(line).startsWith("<3>{").doesNotContain("\n");
        Map<?, ?> event = (Map<?, ?>) JsonReader.parse(line.substring(3));
        assertThat(event.get("level")).isEqualTo("error");
        assertThat(event.get("event")).isEqualTo("serve.start_failed");
        assertThat(String.valueOf(event.get("message"))).contains("--nbd-listen");
        Path plain = dir.resolve("plain.err");
        assertThat(refusal(plain, null)).startsWith("{\"time\":\"");
    }

    /** Connects, takes the greeting and asks for an export that does not exist: a broken handshake. */
    private static void askForAnUnknownExport(int port) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(EXIT_WAIT_SECONDS));
            socket.getInputStream().readNBytes(18); // NBDMAGIC, IHAVEOPT, handshake flags
            byte[] name = "nope".getBytes(StandardCharsets.US_ASCII);
            ByteBuffer ask = ByteBuffer.allocate(4 + 16 + name.length);
            ask.putInt(3); // client flags: fixed newstyle, no zeroes
            ask.putLong(0x49484156454F5054L).putInt(1).putInt(name.length).put(name); // IHAVEOPT, EXPORT_NAME
            OutputStream out = socket.getOutputStream();
            out.write(ask.array());
            out.flush();
            socket.getInputStream().readAllBytes(); // until the server closes it
        }
    }

    /** The stderr of {@code serve --log-format json --nbd-listen 0.0.0.0:0}, with JOURNAL_STREAM (null: unset). */
    private String refusal(Path err, String journalStream) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        ProcessBuilder builder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main", "serve", "--log-format", "json", "--nbd-listen", "0.0.0.0:0",
                "--data-dir", dir.resolve("data").toString()))
                .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove("JOURNAL_STREAM");
        if (journalStream != null) {
            builder.environment().put("JOURNAL_STREAM", journalStream);
        }
        Process process = builder.start();
        assertThat(process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)).as("serve ended").isTrue();
        assertThat(process.exitValue()).isEqualTo(2);
        return Files.readString(err, StandardCharsets.UTF_8);
    }
}

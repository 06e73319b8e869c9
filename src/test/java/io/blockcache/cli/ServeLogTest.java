package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
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
    /** Dirty bytes of the drain that is cancelled: 16 s of writeback at its 64 KiB/s cap. */
    private static final int CANCELLED_DRAIN_BYTES = 1 << 20;
    private static final Pattern PREFIXED = Pattern.compile("<([0-9])>(\\{.*\\})");
    private static final Pattern NBD_LINE = Pattern.compile("^NBD: +nbd://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern ADMIN_LINE = Pattern.compile("^admin: http://127\\.0\\.0\\.1:(\\d+) ");

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

    @Test
    void aServeProcessInJsonNamesAnNbdClientsConnectAndDisconnectAndTheEndOfADrain() throws Exception {
        // Proves on the real process: with --log-format json every stderr line is a JSON object with a level and an
        // event; an NBD client that connects, writes and leaves gives nbd.connect and nbd.disconnect with its export;
        // `blockcache drain` gives drain.done volume=default with the bytes written back and the seconds; `volume add`
        // and `volume remove` give host.volume.added and host.volume.removed; `drain --detach` then `drain cancel`
        // gives drain.cancelled; SLF4J's provider is serve's own (no lib.warning, no SLF4J line); SIGTERM gives
        // serve.stopped.
        Path errFile = dir.resolve("serve.err");
        Path config = Files.writeString(dir.resolve("serve.properties"), "knob.writeback.default.running=false\n");
        String java = ProcessHandle.current().info().command().orElseThrow();
        // The jar's manifest allows JNA's native call (pom.xml); on a class path the JVM needs the flag, or it warns.
        ProcessBuilder builder = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "io.blockcache.cli.Main", "serve", "--log-format", "json",
                "--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "64M", "--nbd-listen", "127.0.0.1:0",
                "--admin-listen", "127.0.0.1:0", "--config", config.toString()))
                .redirectError(errFile.toFile());
        builder.environment().remove("JOURNAL_STREAM");
        Process process = builder.start();
        try {
            Map<String, Integer> ports = ports(process, errFile);
            try (NbdTestClient client = new NbdTestClient(new InetSocketAddress("127.0.0.1", ports.get("nbd")))) {
                client.go("default", false);
                assertThat(client.call(0, NbdProtocol.CMD_WRITE, 0, 65536, new byte[65536]).error()).isZero();
                assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
            }
            CliRun drain = CliRun.of("drain", "--admin", "127.0.0.1:" + ports.get("admin"));
            assertThat(drain.exitCode()).as(drain.err()).isZero();
            Map<?, ?> done = awaitEvent(errFile, "drain.done");
            assertThat(done.get("level")).isEqualTo("info");
            assertThat(done.get("volume")).isEqualTo("default");
            assertThat(((Number) done.get("bytes")).longValue()).isEqualTo(65536);
            assertThat(((Number) done.get("seconds")).longValue()).isNotNegative();
            Map<?, ?> connect = awaitEvent(errFile, "nbd.connect");
            assertThat(connect.get("export")).isEqualTo("default");
            assertThat(connect.get("peer")).isEqualTo("127.0.0.1");
            assertThat(((Number) connect.get("tls")).longValue()).isZero();
            Map<?, ?> disconnect = awaitEvent(errFile, "nbd.disconnect");
            assertThat(disconnect.get("export")).isEqualTo("default");
            String admin = "127.0.0.1:" + ports.get("admin");
            CliRun added = CliRun.of("volume", "add", "v2=" + dir.resolve("v2.img"), "--size", "4M", "--admin", admin);
            assertThat(added.exitCode()).as(added.err()).isZero();
            assertThat(awaitEvent(errFile, "host.volume.added").get("volume")).isEqualTo("v2");
            CliRun removed = CliRun.of("volume", "remove", "v2", "--admin", admin);
            assertThat(removed.exitCode()).as(removed.err()).isZero();
            assertThat(awaitEvent(errFile, "host.volume.removed").get("volume")).isEqualTo("v2");
            cancelADrain(ports.get("nbd"), admin);
            Map<?, ?> cancelled = awaitEvent(errFile, "drain.cancelled");
            assertThat(cancelled.get("level")).isEqualTo("info");
            assertThat(cancelled.get("volume")).isEqualTo("default");
            assertThat(((Number) cancelled.get("bytes")).longValue()).isBetween(0L, (long) CANCELLED_DRAIN_BYTES);
        } finally {
            process.destroy(); // SIGTERM: the clean stop
            assertThat(process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)).as("serve ended").isTrue();
        }
        List<Map<?, ?>> events = jsonLines(Files.readString(errFile, StandardCharsets.UTF_8));
        assertThat(events.stream().map(e -> String.valueOf(e.get("event"))).toList()).contains("host.format",
                "nbd.connect", "nbd.disconnect", "drain.done", "drain.cancelled", "serve.stopping", "serve.stopped")
                .doesNotContain("lib.warning", "lib.error"); // SLF4J bound to serve's provider (cli.LibraryLog)
    }

    /**
     * Writes {@link #CANCELLED_DRAIN_BYTES} and starts a drain capped far below them (64 KiB/s, so it runs for
     * seconds), then cancels it: {@code blockcache drain --detach} and {@code drain cancel}.
     */
    private static void cancelADrain(int nbdPort, String admin) throws Exception {
        try (NbdTestClient client = new NbdTestClient(new InetSocketAddress("127.0.0.1", nbdPort))) {
            client.go("default", false);
            for (int offset = 0; offset < CANCELLED_DRAIN_BYTES; offset += 65536) {
                assertThat(client.call(0, NbdProtocol.CMD_WRITE, offset, 65536, new byte[65536]).error()).isZero();
            }
            assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
        }
        CliRun started = CliRun.of("drain", "--rate-max", "64K/s", "--detach", "--admin", admin);
        assertThat(started.exitCode()).as(started.err()).isZero();
        CliRun cancel = CliRun.of("drain", "cancel", "--admin", admin);
        assertThat(cancel.exitCode()).as(cancel.err()).isZero();
    }

    /** The NBD and admin ports from serve's banner on stdout. */
    private static Map<String, Integer> ports(Process process, Path errFile) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        Map<String, Integer> ports = new java.util.HashMap<>();
        String line;
        while (ports.size() < 2 && (line = out.readLine()) != null) { // ends if serve dies before its banner
            Matcher nbd = NBD_LINE.matcher(line);
            Matcher admin = ADMIN_LINE.matcher(line);
            if (nbd.find()) {
                ports.put("nbd", Integer.parseInt(nbd.group(1)));
            } else if (admin.find()) {
                ports.put("admin", Integer.parseInt(admin.group(1)));
            }
        }
        assertThat(ports).as("serve's banner; stderr:\n" + Files.readString(errFile)).containsKeys("nbd", "admin");
        Thread.ofVirtual().start(() -> drain(out)); // a full pipe must not stop serve
        return ports;
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                continue;
            }
        } catch (java.io.IOException e) {
            // the process ended
        }
    }

    /** Waits (bounded) for the first line of {@code event} in the JSON log; every line must be JSON. */
    private static Map<?, ?> awaitEvent(Path errFile, String event) throws Exception {
        long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_WAIT_SECONDS);
        while (true) {
            String text = Files.readString(errFile, StandardCharsets.UTF_8);
            int complete = text.lastIndexOf('\n') + 1; // the last line may still be being written
            for (Map<?, ?> line : jsonLines(text.substring(0, complete))) {
                if (event.equals(line.get("event"))) {
                    return line;
                }
            }
            assertThat(System.nanoTime()).as("no " + event + " within " + EXIT_WAIT_SECONDS + " s:\n" + text)
                    .isLessThan(endNs);
            Thread.sleep(20); // polls the child's log, bounded by the deadline
        }
    }

    /** Every line parsed as a JSON object with a level and an event name. */
    private static List<Map<?, ?>> jsonLines(String text) {
        List<Map<?, ?>> events = new ArrayList<>();
        for (String line : text.lines().toList()) {
            assertThat(line).as("a JSON object").startsWith("{").endsWith("}");
            Map<?, ?> event = (Map<?, ?>) JsonReader.parse(line);
            assertThat(String.valueOf(event.get("level"))).as(line).isIn("error", "warning", "info");
            assertThat(String.valueOf(event.get("event"))).as(line).matches("[a-z_]+(\\.[a-z_]+)+");
            events.add(event);
        }
        return events;
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

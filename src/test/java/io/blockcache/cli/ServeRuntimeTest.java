package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoResult;
import io.blockcache.loop.LoopCalls;
import io.blockcache.volume.Volume;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeRuntimeTest {
    @TempDir
    Path dir;
    private final StringWriter errText = new StringWriter();
    private final PrintWriter err = new PrintWriter(errText, true);

    private ServeSettings settings(Path dataDir, Path config, String... backings) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--data-dir", dataDir.toString(), "--cache-size", "64M",
                "--backing-size", "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"));
        for (String backing : backings) {
            args.addAll(List.of("--backing", backing));
        }
        if (config != null) {
            args.addAll(List.of("--config", config.toString()));
        }
        return ServeSettings.resolve(args.toArray(String[]::new));
    }

    private static <T> T onLoop(ServeRuntime runtime, Consumer<Consumer<T>> operation) throws Exception {
        return LoopCalls.await(runtime.loop(), operation, Duration.ofSeconds(10));
    }

    private static String get(ServeRuntime runtime, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + runtime.adminAddress().getPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    @Test
    void nbdLimitsFromTheConfigAreEnforcedLoggedAndCountedInStatsAndMetrics() throws Exception {
        // Proves serve passes its NBD limits on: a silent socket is closed at the configured handshake timeout,
        // the operator sees one line, and /api/stats and /metrics count it beside the buffer budget.
        Path config = dir.resolve("limits.properties");
        Files.writeString(config, "nbd-handshake-timeout=1s\nnbd-buffer-max=128M\n");
        ServeRuntime runtime = ServeRuntime.start(settings(dir.resolve("data"), config), err);
        try (java.net.Socket silent = new java.net.Socket(runtime.nbdAddress().getAddress(),
                runtime.nbdAddress().getPort())) {
            silent.setSoTimeout(20_000); // bounds the wait for the server's close
            assertThat(silent.getInputStream().readAllBytes()).hasSize(18); // the greeting, then the close
            assertThat(get(runtime, "/api/stats")).contains("\"handshakeTimeouts\":1")
                    .contains("\"bufferBytesMax\":" + (128L << 20));
            assertThat(get(runtime, "/metrics")).contains("blockcache_nbd_timeouts_total{timeout=\"handshake\"} 1.0")
                    .contains("blockcache_nbd_buffer_max_bytes " + (double) (128L << 20));
            Map<?, ?> stats = (Map<?, ?>) JsonReader.parse(get(runtime, "/api/stats"));
            assertThat(StatsTable.format(stats)).contains("nbd: 0 connections (1 accepted; refused 0 by the total,"
                    + " 0 by the address limit); timeouts 1 handshake, 0 idle, 0 reply;", "buffers 0 B of 128.0 MiB");
        } finally {
            assertThat(runtime.stop()).isTrue();
        }
        assertThat(errText.toString()).contains("handshake not finished within 1000 ms; connection closed");
    }

    @Test
    void tlsFromTheConfigIsEnforcedLoggedAndCountedInStatsAndMetrics() throws Exception {
        // Proves serve passes its TLS settings on: with tls=require a plain client's first option is answered
        // NBD_REP_ERR_TLS_REQD, the operator sees one line, and /api/stats, /metrics and the stats line count it.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "ab".repeat(32) + "\n");
        Path config = Files.writeString(dir.resolve("tls.properties"), "tls=require\ntls-psk=" + keys + "\n");
        ServeRuntime runtime = ServeRuntime.start(settings(dir.resolve("data"), config), err);
        try (java.net.Socket plain = new java.net.Socket(runtime.nbdAddress().getAddress(),
                runtime.nbdAddress().getPort())) {
            plain.setSoTimeout(20_000);
            java.io.DataInputStream in = new java.io.DataInputStream(plain.getInputStream());
            java.io.DataOutputStream out = new java.io.DataOutputStream(plain.getOutputStream());
            in.readFully(new byte[18]); // the greeting
            out.writeInt(io.blockcache.nbd.NbdProtocol.CLIENT_FLAG_FIXED_NEWSTYLE);
            out.writeLong(io.blockcache.nbd.NbdProtocol.OPTION_MAGIC);
            out.writeInt(io.blockcache.nbd.NbdProtocol.OPT_LIST);
            out.writeInt(0);
            out.flush();
            in.readLong(); // the option reply magic
            assertThat(in.readInt()).isEqualTo(io.blockcache.nbd.NbdProtocol.OPT_LIST);
            assertThat(in.readInt()).isEqualTo(io.blockcache.nbd.NbdProtocol.REP_ERR_TLS_REQD);
            assertThat(get(runtime, "/api/stats")).contains("\"tlsRequiredRefusals\":1");
            assertThat(get(runtime, "/metrics"))
                    .contains("blockcache_nbd_tls_refusals_total{reason=\"tls_required\"} 1.0")
                    .contains("blockcache_nbd_tls_handshakes_total{result=\"failed\"} 0.0");
            Map<?, ?> stats = (Map<?, ?>) JsonReader.parse(get(runtime, "/api/stats"));
            assertThat(StatsTable.format(stats)).contains("TLS 0 handshakes, 0 failed, 1 refused for want of TLS");
        } finally {
            assertThat(runtime.stop()).isTrue();
        }
        assertThat(errText.toString()).contains("option 3 before TLS refused (--tls=require)");
    }

    @Test
    void startsFreshStopsCleanAndRestartsWithTheData() throws Exception {
        // Proves the serve life cycle: format new files, admin API up, stop marks the superblock clean, and the
        // next start reopens the same files with the data written before.
        Path data = dir.resolve("data");
        // Writeback would clean the data before the second start looks: pause it from the start in both runs.
        Path config = dir.resolve("paused.properties");
        Files.writeString(config, "knob.writeback.default.running=false\n");
        ServeRuntime first = ServeRuntime.start(settings(data, config), err);
        assertThat(Files.size(data.resolve("cache.img"))).isEqualTo(64L << 20);
        assertThat(Files.size(data.resolve("backing.img"))).isEqualTo((256L << 20) + (1L << 20)); // export + header
        assertThat(get(first, "/api/stats")).contains("\"name\":\"default\"");
        byte[] written = new byte[8192];
        Arrays.fill(written, (byte) 0x5a);
        Volume volume = first.cacheSet().volume("default");
        assertThat(ServeRuntimeTest.<IoResult>onLoop(first, done ->
                volume.write(4096, ByteBuffer.wrap(written), false, done::accept))).isEqualTo(IoResult.OK);
        assertThat(first.stop()).as(errText.toString()).isTrue();
        assertThat(ServeFiles.superblock(data.resolve("cache.img")).cleanShutdown()).isTrue();
        // The damage map lives in its file by default (docs/WRITEBACK.md "Where the map lives"): 1 MiB, sparse,
        // starting with a copy of the backing header so that check --damage can read the file alone.
        Path mapFile = data.resolve("damage-map-default.img");
        assertThat(Files.size(mapFile)).isEqualTo(1L << 20);
        assertThat(new String(Files.readAllBytes(mapFile), 0, 8, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("BCACHEBK");

        ServeRuntime second = ServeRuntime.start(settings(data, config), err);
        ByteBuffer read = ByteBuffer.allocate(8192);
        Volume reopened = second.cacheSet().volume("default");
        assertThat(ServeRuntimeTest.<IoResult>onLoop(second, done -> reopened.read(4096, read, done::accept)))
                .isEqualTo(IoResult.OK);
        assertThat(read.array()).isEqualTo(written);
        assertThat(get(second, "/api/stats")).contains("\"dirtyBytes\":8192");
        assertThat(second.stop()).isTrue();
        assertThat(errText.toString()).contains("formatting").doesNotContain("Exception");
    }

    @Test
    void configKnobsApplyAtStartAndUnknownOnesStopIt() throws Exception {
        // Proves knob.NAME lines in the config file reach the engine, and a misspelt knob is an error, not ignored.
        Path config = dir.resolve("serve.properties");
        Files.writeString(config, "knob.volume.default.mode=writearound\n");
        ServeRuntime runtime = ServeRuntime.start(settings(dir.resolve("d"), config), err);
        assertThat(get(runtime, "/api/knobs/volume.default.mode")).contains("\"value\":\"writearound\"");
        assertThat(runtime.stop()).isTrue();

        Files.writeString(config, "knob.volume.default.moed=none\n");
        assertThatThrownBy(() -> ServeRuntime.start(settings(dir.resolve("d"), config), err))
                .hasMessageContaining("no knob named \"volume.default.moed\"");
    }

    @Test
    void aForeignOrMissingBackingFileIsRefusedWithTheEnginesMessage() throws Exception {
        // Proves open errors reach the user: another set's backing file is refused by the engine's check, and a
        // missing backing file next to an existing cache is not silently recreated empty.
        ServeRuntime a = ServeRuntime.start(settings(dir.resolve("a"), null), err);
        assertThat(a.stop()).isTrue();
        ServeRuntime b = ServeRuntime.start(settings(dir.resolve("b"), null), err);
        assertThat(b.stop()).isTrue();
        Path foreign = dir.resolve("b").resolve("backing.img");
        assertThatThrownBy(() -> ServeRuntime.start(settings(dir.resolve("a"), null, "default=" + foreign), err))
                .hasMessageContaining("cannot open the cache set");
        Files.delete(dir.resolve("a").resolve("backing.img"));
        assertThatThrownBy(() -> ServeRuntime.start(settings(dir.resolve("a"), null), err))
                .hasMessageContaining("is missing").hasMessageContaining("refusing to attach an empty file");
        assertThat(dir.resolve("a").resolve("backing.img")).doesNotExist();
    }

    @Test
    void aNewCacheRefusesABackingFileThatHoldsAnotherCacheSetsHeaderUnlessForced() throws Exception {
        // Proves serve with a new cache does not overwrite a backing header (format refuses it too): one line naming
        // the file and --force, nothing created (not the cache, not another export's new backing file, not a map
        // file) and the backing file unchanged; with --force it formats over it.
        ServeRuntime a = ServeRuntime.start(settings(dir.resolve("a"), null), err);
        assertThat(a.stop()).isTrue();
        Path attached = dir.resolve("a").resolve("backing.img");
        byte[] before = Files.readAllBytes(attached);
        Path fresh = dir.resolve("c");
        Path newBacking = dir.resolve("new-backing.img");
        assertThatThrownBy(() -> ServeRuntime.start(settings(fresh, null, "first=" + newBacking,
                "default=" + attached), err))
                .hasMessageContaining("refusing to attach " + attached + " as export \"default\"")
                .hasMessageContaining("holds a blockcache backing header").hasMessageContaining("--force")
                .hasMessageNotContaining("\n");
        assertThat(fresh.resolve("cache.img")).doesNotExist();
        assertThat(fresh.resolve("damage-map-default.img")).doesNotExist();
        assertThat(newBacking).doesNotExist();
        assertThat(Files.readAllBytes(attached)).isEqualTo(before);

        ServeRuntime forced = ServeRuntime.start(settings(fresh, null, "default=" + attached), true, err);
        assertThat(forced.stop()).isTrue();
        assertThat(Files.readAllBytes(attached)).isNotEqualTo(before); // a new header, of the new cache set
    }
}

package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Volumes as live objects on a real {@code serve} (docs/OPERATIONS.md "Volumes"): {@code blockcache volume add,
 * remove, resize, list} as separate processes, NBD clients on the exports, {@code nbdinfo} for what a client learns.
 */
@Timeout(300)
class VolumeLifecycleInteropTest {
    private static final int BLOCK = 4096;
    /** The load writes blocks of the first 16 MiB of the default export. */
    private static final int LOAD_BLOCKS = 4096;
    /** Bounds of the load: it stops at whichever comes first (the test stops it much earlier). */
    private static final int LOAD_WRITES_MAX = 200_000;
    private static final Duration LOAD_TIME_MAX = Duration.ofSeconds(120);
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(30);
    private static final int V2_BLOCKS = 1024;

    @TempDir
    Path dir;

    @Test
    void aVolumeAddedAndRemovedUnderWriteLoadKeepsEveryByte() throws Exception {
        // Proves that while a client writes the default export, a second volume is added (a new file, no restart),
        // written and read back over NBD, refused removal while it holds dirty data, removed with --drain (its data
        // then on its backing file), and no longer exported; and that every byte the load wrote reads back.
        Path data = dir.resolve("data");
        Path v2File = dir.resolve("v2.img");
        try (ServeProcess serve = ServeProcess.start(data, "serve")) {
            byte[] lastWritten = new byte[LOAD_BLOCKS]; // the fill value of each block's last acknowledged write
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> loadFailure = new AtomicReference<>();
            Thread load = Thread.ofPlatform().name("write-load").start(() -> {
                try (NbdTestClient client = connect(serve, "default")) {
                    long endNs = System.nanoTime() + LOAD_TIME_MAX.toNanos();
                    for (int i = 0; i < LOAD_WRITES_MAX && !stop.get() && System.nanoTime() < endNs; i++) {
                        int block = (int) ((i * 2654435761L) % LOAD_BLOCKS);
                        byte value = (byte) (1 + i % 251);
                        write(client, block, value);
                        lastWritten[block] = value;
                        if (i % 64 == 63) {
                            assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                        }
                    }
                } catch (Throwable e) {
                    loadFailure.set(e);
                }
            });
            String admin = serve.adminHostPort();
            ExternalTool.Run added = CliProcess.run(dir, "volume", "add", "v2=" + v2File, "--size", "4M",
                    "--admin", admin);
            assertThat(added.exitCode()).as(added.describe()).isZero();
            assertThat(added.out()).contains("v2");
            assertThat(Files.size(v2File)).isEqualTo((4L << 20) + (1L << 20));
            assertThat(Files.exists(data.resolve("damage-map-v2.img"))).as("its damage map file").isTrue();
            ServeAdmin.setKnob(serve, "writeback.v2.running", "false"); // so that its data stays dirty
            try (NbdTestClient v2 = connect(serve, "v2")) {
                assertThat(v2.exportSizeBytes()).isEqualTo(4L << 20);
                for (int block = 0; block < V2_BLOCKS; block++) {
                    write(v2, block, (byte) (block % 200 + 7));
                }
                assertThat(v2.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                for (int block = 0; block < V2_BLOCKS; block++) {
                    assertThat(read(v2, block)).as("v2 block %s", block).isEqualTo(filled((byte) (block % 200 + 7)));
                }
            }
            ExternalTool.Run refused = CliProcess.run(dir, "volume", "remove", "v2", "--admin", admin);
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.err()).contains("dirty bytes").contains("--drain").contains("--discard-dirty");
            ExternalTool.Run listed = CliProcess.run(dir, "volume", "list", "--json", "--admin", admin);
            assertThat(listed.out()).contains("\"name\":\"v2\"");
            ExternalTool.Run removed = CliProcess.run(dir, "volume", "remove", "v2", "--drain", "--admin", admin);
            assertThat(removed.exitCode()).as(removed.describe()).isZero();
            listed = CliProcess.run(dir, "volume", "list", "--json", "--admin", admin);
            assertThat(listed.exitCode()).as(listed.describe()).isZero();
            assertThat(listed.out()).contains("\"name\":\"default\"").doesNotContain("\"v2\"");
            assertThat(refusesExport(serve, "v2")).as("v2 is no longer exported").isTrue();
            assertThat(Files.exists(data.resolve("damage-map-v2.img"))).as("its map file went with it").isFalse();
            byte[] onDisk = Files.readAllBytes(v2File);
            for (int block = 0; block < V2_BLOCKS; block++) {
                int at = (1 << 20) + block * BLOCK;
                assertThat(Arrays.copyOfRange(onDisk, at, at + BLOCK)).as("v2 block %s on its file", block)
                        .isEqualTo(filled((byte) (block % 200 + 7)));
            }
            stop.set(true);
            load.join(LOAD_TIME_MAX.toMillis());
            assertThat(loadFailure.get()).as("the write load").isNull();
            try (NbdTestClient client = connect(serve, "default")) {
                for (int block = 0; block < LOAD_BLOCKS; block++) {
                    assertThat(read(client, block)).as("default block %s", block).isEqualTo(filled(lastWritten[block]));
                }
            }
        }
    }

    @Test
    void theClientsOfARemovedVolumeAreDisconnectedAndTheOtherExportsKeepTheirs() throws Exception {
        // Proves that a successful `volume remove` (DELETE /api/volumes/v2) ends every NBD connection to v2 — each
        // client sees the server close it within a bounded wait, and a write sent after the remove is never
        // acknowledged — refuses new connections to v2 as an unknown export, logs how many clients it disconnected,
        // and leaves a client of another export connected and working.
        Path data = dir.resolve("data");
        try (ServeProcess serve = ServeProcess.start(data, "serve")) {
            // write-through: v2 holds no dirty data, so the remove needs neither --drain nor --discard-dirty
            HttpAnswer added = admin(serve, "POST", "/api/volumes?name=v2&uri=" + dir.resolve("v2.img")
                    + "&size=4M&mode=writethrough");
            assertThat(added.status()).as(added.body()).isEqualTo(201);
            try (NbdTestClient other = connect(serve, "default"); NbdTestClient first = connect(serve, "v2");
                 NbdTestClient second = connect(serve, "v2")) {
                write(first, 0, (byte) 5);
                write(second, 1, (byte) 6);
                write(other, 0, (byte) 7);
                HttpAnswer removed = admin(serve, "DELETE", "/api/volumes/v2");
                assertThat(removed.status()).as(removed.body()).isEqualTo(200);
                // The read waits for the server's close, bounded by the socket's read timeout (a timeout throws).
                first.readTimeoutMs(20_000);
                assertThat(first.serverClosed()).as("the server closed v2's first connection").isTrue();
                second.readTimeoutMs(20_000);
                try {
                    NbdTestClient.Reply late = second.call(0, NbdProtocol.CMD_WRITE, 0, BLOCK, filled((byte) 9));
                    assertThat(late.error()).as("a write to the removed volume is not acknowledged").isNotZero();
                    assertThat(second.serverClosed()).as("the server closed v2's second connection").isTrue();
                } catch (java.io.EOFException | java.net.SocketException closed) {
                    // closed before the write was read: not acknowledged either
                }
                assertThat(refusesExport(serve, "v2")).as("v2 is an unknown export now").isTrue();
                write(other, 1, (byte) 8);
                assertThat(read(other, 0)).as("the default export's client still works").isEqualTo(filled((byte) 7));
                assertThat(read(other, 1)).isEqualTo(filled((byte) 8));
            }
            assertThat(serve.log()).contains("export \"v2\" removed: 2 client connections disconnected");
        }
    }

    @Test
    void aVolumeAddedLiveWithABackingLogWritesBehindItAndKeepsThatLayoutWhenAddedAgain() throws Exception {
        // Proves that `volume add --backing-log 8M` makes the store its 1 MiB header, an 8 MiB log and the volume,
        // that the volume takes ordering=journaled (refused without a log) and its data lands behind the log (at
        // 9 MiB in the file after `remove --drain`), that adding the store again without --backing-log is refused
        // with the size to give (it would shift every block by 8 MiB), and that with it the data reads back.
        Path data = dir.resolve("data");
        Path v2File = dir.resolve("v2.img");
        try (ServeProcess serve = ServeProcess.start(data, "serve")) {
            String admin = serve.adminHostPort();
            ExternalTool.Run added = CliProcess.run(dir, "volume", "add", "v2=" + v2File, "--size", "4M",
                    "--backing-log", "8M", "--admin", admin);
            assertThat(added.exitCode()).as(added.describe()).isZero();
            assertThat(Files.size(v2File)).isEqualTo((4L << 20) + (1L << 20) + (8L << 20));
            ServeAdmin.setKnob(serve, "writeback.v2.ordering", "journaled");
            try (NbdTestClient v2 = connect(serve, "v2")) {
                assertThat(v2.exportSizeBytes()).isEqualTo(4L << 20);
                for (int block = 0; block < V2_BLOCKS; block++) {
                    write(v2, block, (byte) (block % 200 + 3));
                    if (block % 256 == 255) { // epochs for journaled write-back to group
                        assertThat(v2.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                    }
                }
            }
            ExternalTool.Run removed = CliProcess.run(dir, "volume", "remove", "v2", "--drain", "--admin", admin);
            assertThat(removed.exitCode()).as(removed.describe()).isZero();
            byte[] onDisk = Files.readAllBytes(v2File);
            for (int block = 0; block < V2_BLOCKS; block++) {
                int at = (9 << 20) + block * BLOCK;
                assertThat(Arrays.copyOfRange(onDisk, at, at + BLOCK)).as("v2 block %s behind the log", block)
                        .isEqualTo(filled((byte) (block % 200 + 3)));
            }
            ExternalTool.Run moved = CliProcess.run(dir, "volume", "add", "v2=" + v2File, "--admin", admin);
            assertThat(moved.exitCode()).as(moved.describe()).isEqualTo(1);
            assertThat(moved.err()).contains("--backing-log 8M").contains("every block");
            assertThat(refusesExport(serve, "v2")).isTrue();
            ExternalTool.Run again = CliProcess.run(dir, "volume", "add", "v2=" + v2File, "--backing-log", "8M",
                    "--admin", admin);
            assertThat(again.exitCode()).as(again.describe()).isZero();
            try (NbdTestClient v2 = connect(serve, "v2")) {
                for (int block = 0; block < V2_BLOCKS; block++) {
                    assertThat(read(v2, block)).as("v2 block %s added again", block)
                            .isEqualTo(filled((byte) (block % 200 + 3)));
                }
            }
        }
    }

    @Test
    void aStoreAddedLiveInPlaceIsExportedWholeWithNothingWrittenOnItAndKeptAcrossARestart() throws Exception {
        // Proves that `volume add v3=FILE --in-place` exports an existing file whole with its bytes visible at once
        // and writes nothing on it (byte for byte as before), that a restart opens it (its fingerprint checked after
        // the clean stop), that a write reaches the file at its own offset after `remove --drain`, and that a file
        // holding a blockcache backing header is refused in place (the volume would start with it).
        Path data = dir.resolve("data");
        Path v3File = RandomFiles.write(dir.resolve("v3.img"), 4 << 20, 7);
        byte[] original = Files.readAllBytes(v3File);
        try (ServeProcess serve = ServeProcess.start(data, "first")) {
            ExternalTool.Run added = CliProcess.run(dir, "volume", "add", "v3=" + v3File, "--in-place", "--admin",
                    serve.adminHostPort());
            assertThat(added.exitCode()).as(added.describe()).isZero();
            assertThat(Files.readAllBytes(v3File)).as("nothing written on the store").isEqualTo(original);
            try (NbdTestClient v3 = connect(serve, "v3")) {
                assertThat(v3.exportSizeBytes()).isEqualTo(4L << 20);
                assertThat(read(v3, 5)).isEqualTo(Arrays.copyOfRange(original, 5 * BLOCK, 6 * BLOCK));
                write(v3, 0, (byte) 0x11);
                assertThat(v3.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
            }
        }
        try (ServeProcess serve = ServeProcess.start(data, "second")) {
            String admin = serve.adminHostPort();
            try (NbdTestClient v3 = connect(serve, "v3")) {
                assertThat(read(v3, 0)).isEqualTo(filled((byte) 0x11));
                assertThat(read(v3, 5)).isEqualTo(Arrays.copyOfRange(original, 5 * BLOCK, 6 * BLOCK));
            }
            ExternalTool.Run removed = CliProcess.run(dir, "volume", "remove", "v3", "--drain", "--admin", admin);
            assertThat(removed.exitCode()).as(removed.describe()).isZero();
            byte[] after = Files.readAllBytes(v3File);
            assertThat(Arrays.copyOfRange(after, 0, BLOCK)).isEqualTo(filled((byte) 0x11));
            assertThat(Arrays.copyOfRange(after, BLOCK, after.length))
                    .isEqualTo(Arrays.copyOfRange(original, BLOCK, original.length));
            Path headed = dir.resolve("headed.img");
            ExternalTool.Run header = CliProcess.run(dir, "volume", "add", "h=" + headed, "--size", "4M", "--admin",
                    admin);
            assertThat(header.exitCode()).as(header.describe()).isZero();
            ExternalTool.Run gone = CliProcess.run(dir, "volume", "remove", "h", "--admin", admin);
            assertThat(gone.exitCode()).as(gone.describe()).isZero();
            ExternalTool.Run refused = CliProcess.run(dir, "volume", "add", "h2=" + headed, "--in-place", "--admin",
                    admin);
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.err()).contains("in place").contains("--force");
        }
    }

    @Test
    void aResizeIsSeenByNbdinfoAfterReconnectAndKeptAcrossARestartAsAreAddedVolumes() throws Exception {
        // Proves `volume resize` grows the backing file and the export (nbdinfo sees 128 MiB on its next connection),
        // that shrinking is refused with the reason, and that a restart with the same command line keeps the new size
        // and the volume added live (found through the location the superblock records).
        ExternalTool.require("nbdinfo");
        Path data = dir.resolve("data");
        try (ServeProcess serve = ServeProcess.start(data, "first")) {
            assertThat(exportSize(serve, "default")).isEqualTo(64L << 20);
            ExternalTool.Run grown = CliProcess.run(dir, "volume", "resize", "default", "128M", "--admin",
                    serve.adminHostPort());
            assertThat(grown.exitCode()).as(grown.describe()).isZero();
            assertThat(exportSize(serve, "default")).isEqualTo(128L << 20);
            assertThat(Files.size(data.resolve("backing.img"))).isEqualTo((128L << 20) + (1L << 20));
            ExternalTool.Run shrunk = CliProcess.run(dir, "volume", "resize", "default", "64M", "--admin",
                    serve.adminHostPort());
            assertThat(shrunk.exitCode()).as(shrunk.describe()).isEqualTo(1);
            assertThat(shrunk.err()).contains("shrinking is not supported");
            ExternalTool.Run added = CliProcess.run(dir, "volume", "add", "extra=" + dir.resolve("extra.img"),
                    "--size", "8M", "--mode", "writethrough", "--admin", serve.adminHostPort());
            assertThat(added.exitCode()).as(added.describe()).isZero();
        }
        try (ServeProcess serve = ServeProcess.start(data, "second")) {
            assertThat(exportSize(serve, "default")).isEqualTo(128L << 20);
            assertThat(exportSize(serve, "extra")).isEqualTo(8L << 20);
            ExternalTool.Run listed = CliProcess.run(dir, "volume", "list", "--admin", serve.adminHostPort());
            assertThat(listed.out()).containsPattern("extra +1 +8388608 +writethrough");
        }
    }

    @Test
    void aBackingOfANewNameAtALaterStartIsAddedAndOneThatCannotBeLeavesNothingBehind() throws Exception {
        // Proves that `--backing v2=FILE` of a name the cache does not have, given at a later start, is added as a
        // volume (it used to be refused as missing, with a misleading line, leaving damage-map-v2.img behind), and
        // that one that cannot be added refuses the start with one line and creates no file.
        Path data = dir.resolve("data");
        try (ServeProcess serve = ServeProcess.start(data, "first")) {
            assertThat(exportSize(serve, "default")).isEqualTo(64L << 20);
        }
        String defaultBacking = "default=" + data.resolve("backing.img");
        try (ServeProcess serve = ServeProcess.start(data, "second", "", "8M", Map.of(), "--backing", defaultBacking,
                "--backing", "v2=" + dir.resolve("v2.img"))) {
            assertThat(exportSize(serve, "v2")).isEqualTo(8L << 20);
        }
        Files.writeString(dir.resolve("foreign.img"), "x".repeat(4096)); // too small to be a volume
        Path config = Files.writeString(dir.resolve("third.properties"), "");
        ExternalTool.Run refused = CliProcess.run(dir, "serve", "--data-dir", data.toString(), "--cache-size", "64M",
                "--backing", defaultBacking, "--backing", "v3=" + dir.resolve("foreign.img"), "--nbd-listen",
                "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--config", config.toString());
        assertThat(refused.exitCode()).as(refused.describe()).isNotZero();
        assertThat(refused.err()).contains("v3");
        assertThat(Files.exists(data.resolve("damage-map-v3.img"))).as("no stray map file").isFalse();
    }

    @Test
    void aKillNineDuringAddResizeOrRemoveIsFollowedByACleanOpenInTheOldOrTheNewState() throws Exception {
        // Proves on real processes that SIGKILL while `add`, `resize` or `remove` is under way (sent, then the kill a
        // few ms later) leaves a cache the next start opens, with the volume in its old or its new state (attached
        // or not; 64 or 128 MiB), and that the operation can be done again after it. Every exact crash point of
        // the same steps is enumerated in simulation (crash.VolumeChangeCrashTest).
        Path data = dir.resolve("data");
        long[] killAfterMs = {3, 30};
        int start = 0;
        for (long delayMs : killAfterMs) {
            Path v2File = dir.resolve("v2-" + delayMs + ".img"); // a new file each round: a re-added one keeps its size
            try (ServeProcess serve = ServeProcess.start(data, "start" + start++)) {
                ServeAdmin.killDuring(serve, "POST", "/api/volumes?name=v2&uri=" + v2File + "&size=64M", delayMs);
            }
            try (ServeProcess serve = ServeProcess.start(data, "start" + start++)) {
                if (!exported(serve, "v2")) {
                    HttpAnswer again = admin(serve, "POST", "/api/volumes?name=v2&uri=" + v2File + "&size=64M");
                    assertThat(again.status()).as(again.body()).isEqualTo(201);
                }
                assertThat(exportSize(serve, "v2")).isEqualTo(64L << 20);
                ServeAdmin.killDuring(serve, "POST", "/api/volumes/v2/resize?size=128M", delayMs);
            }
            try (ServeProcess serve = ServeProcess.start(data, "start" + start++)) {
                long size = exportSize(serve, "v2");
                assertThat(size).as("old or new size").isIn(64L << 20, 128L << 20);
                if (size == 64L << 20) {
                    HttpAnswer again = admin(serve, "POST", "/api/volumes/v2/resize?size=128M");
                    assertThat(again.status()).as(again.body()).isEqualTo(200);
                }
                ServeAdmin.killDuring(serve, "DELETE", "/api/volumes/v2?discard-dirty=true", delayMs);
            }
            try (ServeProcess serve = ServeProcess.start(data, "start" + start++)) {
                if (exported(serve, "v2")) {
                    HttpAnswer again = admin(serve, "DELETE", "/api/volumes/v2?discard-dirty=true");
                    assertThat(again.status()).as(again.body()).isEqualTo(200);
                }
                assertThat(exported(serve, "v2")).isFalse();
                assertThat(exportSize(serve, "default")).isEqualTo(64L << 20);
            }
        }
    }

    private record HttpAnswer(int status, String body) {
    }

    private static HttpAnswer admin(ServeProcess serve, String method, String path) throws Exception {
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + serve.adminHostPort() + path))
                        .method(method, java.net.http.HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(30)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return new HttpAnswer(answer.statusCode(), answer.body());
    }

    private static boolean exported(ServeProcess serve, String export) {
        return !refusesExport(serve, export);
    }

    private long exportSize(ServeProcess serve, String export) throws Exception {
        // nbdinfo's output files go to the test's directory, not the working directory (the checkout).
        ExternalTool.Run info = ExternalTool.run(dir, TOOL_TIMEOUT, List.of("nbdinfo",
                "nbd://127.0.0.1:" + serve.nbdPort() + "/" + export));
        assertThat(info.exitCode()).as(info.describe()).isZero();
        Matcher size = Pattern.compile("export-size: (\\d+)").matcher(info.out());
        assertThat(size.find()).as(info.out()).isTrue();
        return Long.parseLong(size.group(1));
    }

    private static boolean refusesExport(ServeProcess serve, String export) {
        try (NbdTestClient client = connect(serve, export)) {
            return false;
        } catch (IOException refused) {
            return true;
        }
    }

    private static NbdTestClient connect(ServeProcess serve, String export) throws IOException {
        return new NbdTestClient(new InetSocketAddress("127.0.0.1", serve.nbdPort())).readTimeoutMs(60_000)
                .go(export, false);
    }

    private static void write(NbdTestClient client, int block, byte value) throws IOException {
        NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_WRITE, (long) block * BLOCK, BLOCK, filled(value));
        if (reply.error() != 0) {
            throw new IOException("write of block " + block + ": NBD error " + reply.error());
        }
    }

    private static byte[] read(NbdTestClient client, int block) throws IOException {
        NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_READ, (long) block * BLOCK, BLOCK, null);
        assertThat(reply.error()).as("read of block " + block).isZero();
        return reply.data();
    }

    private static byte[] filled(byte value) {
        byte[] bytes = new byte[BLOCK];
        Arrays.fill(bytes, value);
        return bytes;
    }
}

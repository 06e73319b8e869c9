package io.blockcache.interop;

import static io.blockcache.interop.ServeAdmin.awaitStats;
import static io.blockcache.interop.ServeAdmin.javaCli;
import static io.blockcache.interop.ServeAdmin.stats;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} over an {@code nbd://} backing end to end, with qemu-nbd as the remote server: data written through
 * blockcache reaches the remote export, survives {@code kill -9} of blockcache, and survives the remote server going
 * away in the middle of writeback.
 */
@Timeout(240)
class NbdBackingInteropTest {
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    /** Bound on polling the stats: far above the seconds writeback needs. */
    private static final Duration STATE_WAIT = Duration.ofSeconds(90);
    /** The remote export: 64 MiB, the first MiB of which becomes the backing header. */
    private static final long REMOTE_BYTES = 64L << 20;
    private static final long DATA_OFFSET_BYTES = 1L << 20;
    private static final int WRITTEN_BYTES = 8 << 20;
    /** Written before the outage: a few writeback runs, each taking the slow remote's 5 s. */
    private static final int OUTAGE_BYTES = 4 << 20;
    /** Large sequential writes must stay in the cache (dirty) rather than go around it. */
    /** The stats of a remote backing that has had no request time out. */
    /** The remote backing's count (the admin API has a "requestTimeouts" of its own, after "admin"). */
    private static final Pattern NO_REQUEST_TIMEOUT = Pattern.compile("\"remote\":\\{[^}]*\"requestTimeouts\":0[,}]");
    private static final String KEEP_DIRTY = "knob.volume.default.sequential_cutoff_bytes=0\n";

    @TempDir
    Path dir;

    @Test
    void writesThroughTheCacheReachTheRemoteExportAfterADrain() throws Exception {
        // Proves the whole path: nbdcopy writes 8 MiB through blockcache (dirty in the cache), a drain writes it
        // back over NBD, and nbdcopy reading the remote export itself finds it at the data offset, byte for byte.
        ExternalTool.require("nbdcopy");
        Path remoteFile = sparse("remote.img");
        try (RemoteNbdServer remote = RemoteNbdServer.qemuNbd(dir, remoteFile, "vol");
                ServeProcess serve = ServeProcess.start(dataDir(), "first", backing(remote) + KEEP_DIRTY)) {
            Path random = RandomFiles.write(dir.resolve("random.bin"), WRITTEN_BYTES, 21);
            run("nbdcopy", "--flush", random.toString(), serve.uri());
            assertThat(stats(serve)).doesNotContain("\"dirtyBytes\":0,");
            ExternalTool.Run drain = cli("drain", "--volume", "default", "--admin", serve.adminHostPort());
            assertThat(drain.exitCode()).as(drain.describe() + "\n" + serve.log()).isZero();
            Path copy = dir.resolve("remote-copy.img");
            run("nbdcopy", remote.uri("vol"), copy.toString());
            assertThat(slice(copy, DATA_OFFSET_BYTES, WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
        }
    }

    @Test
    void killMinusNineWithDirtyDataOverAnNbdBackingLosesNothing() throws Exception {
        // Proves crash safety over a remote backing: dirty data acknowledged by a flush survives kill -9 of
        // blockcache; the restarted server reads it back and then writes it to the remote export.
        ExternalTool.require("nbdcopy");
        Path remoteFile = sparse("remote.img");
        try (RemoteNbdServer remote = RemoteNbdServer.qemuNbd(dir, remoteFile, "vol")) {
            Path random = RandomFiles.write(dir.resolve("random.bin"), WRITTEN_BYTES, 22);
            try (ServeProcess first = ServeProcess.start(dataDir(), "first", backing(remote) + KEEP_DIRTY)) {
                run("nbdcopy", "--flush", random.toString(), first.uri());
                first.killMinusNine();
            }
            try (ServeProcess second = ServeProcess.start(dataDir(), "second", backing(remote) + KEEP_DIRTY)) {
                Path back = dir.resolve("back.bin");
                run("nbdcopy", second.uri(), back.toString());
                assertThat(slice(back, 0, WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
                ExternalTool.Run drain = cli("drain", "--volume", "default", "--admin", second.adminHostPort());
                assertThat(drain.exitCode()).as(drain.describe() + "\n" + second.log()).isZero();
            }
            assertThat(slice(remoteFile, DATA_OFFSET_BYTES, WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
        }
    }

    @Test
    void writebackResumesWhenTheRemoteServerGoesAwayMidWritebackAndComesBack() throws Exception {
        // Proves the outage path: writeback is writing to a slow remote (nbdkit file behind a 5 s write delay) when
        // the server is killed; writeback errors show in the stats while dirty data stays in the cache; the server
        // restarts on the same port over the same file, the client reconnects, writeback finishes (nothing dirty)
        // and the remote file holds every byte.
        ExternalTool.require("nbdcopy");
        Path remoteFile = sparse("remote.img");
        List<String> slowFile = List.of("--filter=delay", "file", remoteFile.toString(), "delay-write=5");
        Path random = RandomFiles.write(dir.resolve("random.bin"), OUTAGE_BYTES, 23);
        try (RemoteNbdServer remote = RemoteNbdServer.nbdkit(dir, slowFile);
                ServeProcess serve = ServeProcess.start(dataDir(), "first", backing(remote) + KEEP_DIRTY)) {
            run("nbdcopy", "--flush", random.toString(), serve.uri());
            // Over HTTP, not the CLI: the writes stay in flight for the delay filter's 5 s, and a child JVM's start
            // and exit on a loaded machine took longer than that once (the poll then saw the writeback finished).
            ServeAdmin.setKnob(serve, "writeback.default.running", "true");
            awaitStats(serve, s -> !s.contains("\"backingWritesInFlight\":0,"), "start writing back", STATE_WAIT);
            remote.kill();
            String away = awaitStats(serve, s -> !s.contains("\"backingWrite\":0,"), "show a writeback error",
                    STATE_WAIT);
            assertThat(away).doesNotContain("\"dirtyBytes\":0,");
            remote.start();
            awaitStats(serve, s -> s.contains("\"dirtyBytes\":0,"), "finish writeback after the server returned",
                    STATE_WAIT);
            Path back = dir.resolve("back.bin");
            run("nbdcopy", serve.uri(), back.toString());
            assertThat(slice(back, 0, OUTAGE_BYTES)).isEqualTo(Files.readAllBytes(random));
        }
        assertThat(slice(remoteFile, DATA_OFFSET_BYTES, OUTAGE_BYTES)).isEqualTo(Files.readAllBytes(random));
    }

    @Test
    void theConfiguredRequestTimeoutBreaksAConnectionToARemoteThatStopsAnswering() throws Exception {
        // Proves nbd-backing-timeout reaches the running client: the remote holds every write for 30 s (nbdkit's
        // delay filter), far less than the 60 s default timeout but far more than the configured 1 s, so a timeout
        // counted in the stats while writeback waits can only be the configured one; the dirty data stays cached.
        // The cache is formatted in place, so that neither format nor serve writes to the stalled remote.
        ExternalTool.require("nbdcopy");
        Path remoteFile = sparse("remote.img");
        List<String> stalled = List.of("--filter=delay", "file", remoteFile.toString(), "delay-write=30");
        Path random = RandomFiles.write(dir.resolve("random.bin"), 1 << 20, 24);
        Path data = dataDir();
        try (RemoteNbdServer remote = RemoteNbdServer.nbdkit(dir, stalled)) {
            ExternalTool.Run format = cli("format", "--cache", data.resolve("cache.img").toString(), "--cache-size",
                    "64M", "--backing", remote.uri("vol"), "--in-place");
            assertThat(format.exitCode()).as(format.describe()).isZero();
            try (ServeProcess serve = ServeProcess.start(data, "first",
                    backing(remote) + KEEP_DIRTY + "nbd-backing-timeout=1s\n")) {
                assertThat(stats(serve)).containsPattern(NO_REQUEST_TIMEOUT);
                run("nbdcopy", "--flush", random.toString(), serve.uri());
                ServeAdmin.setKnob(serve, "writeback.default.running", "true");
                String timedOut = awaitStats(serve, s -> s.contains("\"requestTimeouts\":")
                        && !NO_REQUEST_TIMEOUT.matcher(s).find(), "count a request timeout", STATE_WAIT);
                assertThat(timedOut).doesNotContain("\"dirtyBytes\":0,");
            }
        }
    }

    @Test
    void aRemoteExportCachedInPlaceKeepsItsDataAndSizeAndIsRefusedAfterAWriteBehindTheBack() throws Exception {
        // Proves format --in-place over nbd://: nothing is written on the export, blockcache exports exactly its
        // size with its data visible at once, writes drain to the same offsets (no header), and after a clean
        // stop a write behind the cache's back to a sampled block (byte 0) makes the next serve refuse it.
        ExternalTool.require("nbdcopy");
        Path remoteFile = RandomFiles.write(dir.resolve("remote.img"), (int) REMOTE_BYTES, 31);
        String before = RandomFiles.sha256(remoteFile, REMOTE_BYTES);
        Path data = dataDir();
        try (RemoteNbdServer remote = RemoteNbdServer.qemuNbd(dir, remoteFile, "vol")) {
            ExternalTool.Run format = cli("format", "--cache", data.resolve("cache.img").toString(), "--cache-size",
                    "64M", "--backing", remote.uri("vol"), "--in-place");
            assertThat(format.exitCode()).as(format.describe()).isZero();
            assertThat(RandomFiles.sha256(remoteFile, REMOTE_BYTES)).as("nothing written").isEqualTo(before);
            Path overwrite = RandomFiles.write(dir.resolve("overwrite.bin"), 1 << 20, 32);
            try (ServeProcess serve = ServeProcess.start(data, "first", backing(remote) + KEEP_DIRTY)) {
                ExternalTool.Run info = ExternalTool.run(dir, TOOL_TIMEOUT, List.of("nbdinfo", "--size", serve.uri()));
                assertThat(info.out().strip()).isEqualTo(Long.toString(REMOTE_BYTES));
                Path whole = dir.resolve("whole.img");
                run("nbdcopy", serve.uri(), whole.toString());
                assertThat(RandomFiles.sha256(whole, REMOTE_BYTES)).isEqualTo(before);
                run("nbdcopy", "--flush", overwrite.toString(), serve.uri());
                ExternalTool.Run drain = cli("drain", "--volume", "default", "--admin", serve.adminHostPort());
                assertThat(drain.exitCode()).as(drain.describe()).isZero();
            } // SIGTERM: a clean stop, which takes the fingerprint again
            assertThat(slice(remoteFile, 0, 1 << 20)).isEqualTo(Files.readAllBytes(overwrite));
            try (ServeProcess again = ServeProcess.start(data, "second", backing(remote))) {
                assertThat(again.log()).doesNotContain("refus");
            }
            try (RandomAccessFile raf = new RandomAccessFile(remoteFile.toFile(), "rw")) {
                raf.write(new byte[] {1, 2, 3}); // behind the cache's back, into sampled block 0
            }
            ExternalTool.Run refused = cli("serve", "--data-dir", data.toString(), "--backing",
                    "default=" + remote.uri("vol"), "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.err().strip().lines()).as(refused.describe()).hasSize(1);
            assertThat(refused.err()).contains("written behind the cache's back");
        }
    }

    @Test
    void badRemoteBackingsAreOneLineErrorsAndNothingIsWritten() throws Exception {
        // Proves the start-up refusals of serve: nothing listening, a missing export, an export too small for the
        // header, and (after a format) the export for a new cache, a blank export or the right one grown: each exit 1
        // with one line, no cache file created by the refusals, and the remote export not written.
        Path data = dataDir();
        int deadPort = RemoteNbdServer.freePort();
        assertRefused(data, "nbd://127.0.0.1:" + deadPort + "/vol", "cannot connect");
        Path small = dir.resolve("small.img");
        Files.write(small, new byte[1 << 20]);
        Path remoteFile = sparse("remote.img");
        try (RemoteNbdServer tiny = RemoteNbdServer.qemuNbd(dir, small, "tiny");
                RemoteNbdServer remote = RemoteNbdServer.qemuNbd(dir, remoteFile, "vol")) {
            assertRefused(data, remote.uri("nope"), "has no export named \"nope\"");
            assertRefused(data, tiny.uri("tiny"), "too small");
            assertThat(Files.exists(data.resolve("cache.img"))).isFalse();
            assertThat(slice(remoteFile, 0, 4096)).isEqualTo(new byte[4096]);
            try (ServeProcess serve = ServeProcess.start(data, "first", backing(remote))) {
                assertThat(serve.log()).contains("attaching " + remote.uri("vol"));
            }
            // A new cache (another data directory) would overwrite the header the first one wrote.
            byte[] header = slice(remoteFile, 0, 4096);
            Path other = Files.createDirectories(dir.resolve("other"));
            assertRefused(other, remote.uri("vol"), "holds a blockcache backing header");
            assertThat(Files.exists(other.resolve("cache.img"))).isFalse();
            assertThat(slice(remoteFile, 0, 4096)).isEqualTo(header);
            try (RemoteNbdServer blank = RemoteNbdServer.qemuNbd(dir, sparse("blank.img"), "vol")) {
                assertRefused(data, blank.uri("vol"), "header is not readable");
            }
            Path grown = Files.copy(remoteFile, dir.resolve("shrunk.img"));
            try (RandomAccessFile raf = new RandomAccessFile(grown.toFile(), "rw")) {
                raf.setLength(REMOTE_BYTES / 2); // shrunk: a grown export keeps its volume (FORMAT.md §3)
            }
            try (RemoteNbdServer resized = RemoteNbdServer.qemuNbd(dir, grown, "vol")) {
                assertRefused(data, resized.uri("vol"), "was resized");
            }
        }
    }

    /** serve with {@code uri} as its only backing exits 1 with one line on stderr containing {@code expected}. */
    private void assertRefused(Path data, String uri, String expected) throws Exception {
        ExternalTool.Run run = cli("serve", "--data-dir", data.toString(), "--cache-size", "64M", "--backing",
                "default=" + uri, "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(1);
        assertThat(run.err().strip().lines()).as(run.describe()).hasSize(1);
        assertThat(run.err()).as(run.describe()).contains(expected);
    }

    private Path dataDir() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        return data;
    }

    private static String backing(RemoteNbdServer remote) {
        return "backing=default=" + remote.uri("vol") + "\n";
    }

    private Path sparse(String name) throws Exception {
        return sparse(name, REMOTE_BYTES);
    }

    private Path sparse(String name, long sizeBytes) throws Exception {
        Path file = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(sizeBytes);
        }
        return file;
    }

    private static byte[] slice(Path file, long offsetBytes, int lengthBytes) throws Exception {
        byte[] bytes = new byte[lengthBytes];
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            raf.seek(offsetBytes);
            raf.readFully(bytes);
        }
        return bytes;
    }

    private void run(String... command) throws Exception {
        run(List.of(command));
    }

    private void run(List<String> command) throws Exception {
        ExternalTool.Run run = ExternalTool.run(dir, TOOL_TIMEOUT, command);
        assertThat(run.exitCode()).as(command + "\n" + run.describe()).isZero();
    }

    private ExternalTool.Run cli(String... args) throws Exception {
        return ExternalTool.run(dir, TOOL_TIMEOUT, javaCli(args));
    }
}

package io.blockcache.interop;

import static io.blockcache.interop.ServeAdmin.awaitStats;
import static io.blockcache.interop.ServeAdmin.javaCli;
import static io.blockcache.interop.ServeAdmin.setKnob;
import static io.blockcache.interop.ServeAdmin.stats;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.backing.S3Volume;
import io.blockcache.bench.S3ProxyServer;
import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code format} and {@code serve} over an {@code s3://} backing end to end, with S3Proxy as the S3 server in a
 * separate process: data written through blockcache reaches the chunk objects, survives {@code kill -9} of
 * blockcache during writeback, one cache owns a volume, and bad locations are refused with one line.
 */
@Timeout(300)
class S3BackingInteropTest {
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STATE_WAIT = Duration.ofSeconds(90);
    private static final String BUCKET = "volumes";
    /** Volume byte 0 is backing byte 1 MiB: the first MiB is the backing header (docs/FORMAT.md §4). */
    private static final int DATA_OFFSET_BYTES = 1 << 20;
    /** With an 8 MiB backing log, the volume starts behind it (docs/FORMAT.md §4.4). */
    private static final int JOURNALED_DATA_OFFSET_BYTES = 9 << 20;
    private static final int WRITTEN_BYTES = 8 << 20;
    private static final String KEEP_DIRTY = "knob.volume.default.sequential_cutoff_bytes=0\n";

    @TempDir
    Path dir;
    private S3ProxyServer proxy;

    @BeforeEach
    void startProxy() throws Exception {
        proxy = S3ProxyServer.start(dir);
        proxy.createBucket(BUCKET);
    }

    @AfterEach
    void stopProxy() throws Exception {
        proxy.close();
    }

    @Test
    void formatThenServeWritesReachTheChunkObjectsAfterADrain() throws Exception {
        // Proves the whole path: format creates the volume (metadata, owner, header in chunk 0), nbdcopy writes 8 MiB
        // through blockcache (dirty in the cache, not yet in the bucket), a drain writes it back, and a fresh S3 client
        // finds it in the chunk objects at the data offset, byte for byte.
        ExternalTool.require("nbdcopy");
        Path data = dataDir();
        ExternalTool.Run format = formatVolume(data);
        assertThat(format.exitCode()).as(format.describe()).isZero();
        assertThat(format.out()).contains("on s3://" + BUCKET + "/vol: 64.0 MiB (67108864 bytes)"); // exactly as asked
        assertThat(keys("vol")).contains("vol/volume", "vol/owner", "vol/chunk-0000000000000000");
        Path random = RandomFiles.write(dir.resolve("random.bin"), WRITTEN_BYTES, 41);
        try (ServeProcess serve = start(data, "first")) {
            run("nbdcopy", "--flush", random.toString(), serve.uri());
            assertThat(stats(serve)).doesNotContain("\"dirtyBytes\":0,");
            assertThat(volumeBytes("vol", 0, WRITTEN_BYTES)).isNotEqualTo(Files.readAllBytes(random));
            ExternalTool.Run drain = cli(Map.of(), "drain", "--volume", "default", "--admin", serve.adminHostPort());
            assertThat(drain.exitCode()).as(drain.describe() + "\n" + serve.log()).isZero();
        }
        assertThat(volumeBytes("vol", 0, WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
    }

    @Test
    void fioAndQemuIoWriteThroughAnS3BackingAndTheBucketHoldsTheirDataAfterADrain() throws Exception {
        // Proves the S3 backing with two more real clients: fio's nbd engine (4 KiB random writes at iodepth 16, each
        // block verified by its CRC32C when read back) and qemu-io (a 1 MiB pattern written, flushed and read back
        // with -P); blockcache's view is copied out, a drain writes it back, and a fresh S3 client finds exactly those
        // bytes in the chunk objects; the S3 counters show the PUTs.
        ExternalTool.require("fio");
        ExternalTool.require("qemu-io");
        ExternalTool.require("nbdcopy");
        Path data = dataDir();
        int fioBytes = 8 << 20;
        long patternOffset = 16L << 20;
        int patternBytes = 1 << 20;
        Path seen = dir.resolve("seen.bin");
        try (ServeProcess serve = start(data, "first")) {
            Path job = dir.resolve("s3.fio");
            Files.writeString(job, String.join("\n", "[global]", "ioengine=nbd", "uri=" + serve.uri(),
                    "rw=randwrite", "bs=4k", "iodepth=16", "size=" + fioBytes, "randrepeat=1", "verify=crc32c",
                    "do_verify=1", "verify_fatal=1", "[s3]", ""));
            ExternalTool.Run fio = ExternalTool.run(dir, TOOL_TIMEOUT, List.of("fio", job.toString()));
            assertThat(fio.exitCode()).as(fio.describe()).isZero();
            assertThat(fio.out()).doesNotContain("verify: bad");
            String pattern = "-P 0xab " + patternOffset + " " + patternBytes;
            run("qemu-io", "-f", "raw", "-c", "write " + pattern, "-c", "flush", serve.uri());
            ExternalTool.Run check = ExternalTool.run(dir, TOOL_TIMEOUT,
                    List.of("qemu-io", "-f", "raw", "-c", "read " + pattern, serve.uri()));
            assertThat(check.exitCode()).as(check.describe()).isZero();
            assertThat(check.out() + check.err()).doesNotContain("Pattern verification failed");
            run("nbdcopy", serve.uri(), seen.toString());
            assertThat(volumeBytes("vol", 0, fioBytes)).isNotEqualTo(Arrays.copyOf(Files.readAllBytes(seen),
                    fioBytes)); // dirty in the cache, not yet in the bucket: the drain below is what moves it
            ExternalTool.Run drain = cli(Map.of(), "drain", "--volume", "default", "--admin", serve.adminHostPort());
            assertThat(drain.exitCode()).as(drain.describe() + "\n" + serve.log()).isZero();
            ExternalTool.Run stats = cli(Map.of(), "stats", "--admin", serve.adminHostPort());
            assertThat(stats.out()).as(stats.describe()).containsPattern("backing default \\(s3\\): owned by [^;]+; "
                    + "[1-9][0-9]* PUTs");
        }
        byte[] expected = Files.readAllBytes(seen);
        assertThat(volumeBytes("vol", 0, fioBytes)).isEqualTo(Arrays.copyOf(expected, fioBytes));
        byte[] written = new byte[patternBytes];
        Arrays.fill(written, (byte) 0xab);
        assertThat(volumeBytes("vol", patternOffset, patternBytes)).isEqualTo(written);
        assertThat(Arrays.copyOfRange(expected, (int) patternOffset, (int) patternOffset + patternBytes))
                .isEqualTo(written);
    }

    @Test
    void journaledWritebackToS3GoesThroughTheBackingLogAndLeavesEveryByteInPlace() throws Exception {
        // Proves the backing log on an s3:// volume end to end: format reserves 8 MiB of log after the header (the
        // export shrinks by it), qemu-io writes four epochs (a flush after each, no overlaps, so nothing is held while
        // writeback is off), and the drain of ordering=journaled commits them to the log as a group, places them and
        // retires the log: a fresh S3 client finds every byte behind the log, and the commit block zero again.
        Path data = formatJournaledVolume();
        byte[] expected = new byte[8 << 20];
        try (ServeProcess serve = startJournaled(data, "first")) {
            run(epochWrites(serve, expected));
            assertThat(stats(serve)).contains("\"logGroups\":0");
            ExternalTool.Run drain = cli(Map.of(), "drain", "--volume", "default", "--admin", serve.adminHostPort());
            assertThat(drain.exitCode()).as(drain.describe() + "\n" + serve.log()).isZero();
            assertThat(stats(serve)).containsPattern("\"logGroups\":[1-9]").contains("\"backingLog\":\"idle\"");
        }
        assertThat(bytesAt("vol", JOURNALED_DATA_OFFSET_BYTES, expected.length)).isEqualTo(expected);
        assertThat(bytesAt("vol", DATA_OFFSET_BYTES, 4096)).as("the log's commit block, retired")
                .isEqualTo(new byte[4096]);
    }

    @Test
    void killMinusNineWhileAJournaledGroupIsPlacedOnS3IsFinishedByTheReplayAtTheNextOpen() throws Exception {
        // Proves the log's replay on a real S3 backing: four epochs go to the log as one group, its placing is slowed
        // (rate_max 1 MiB/s) and blockcache is killed (-9) while it runs, so the bucket holds a committed log and part
        // of the group in place at most; the next serve replays the group at open, before writeback runs: every byte
        // is in the chunk objects and the log is retired, with writeback still off.
        Path data = formatJournaledVolume();
        byte[] expected = new byte[8 << 20];
        try (ServeProcess first = startJournaled(data, "first")) {
            run(epochWrites(first, expected));
            setKnob(first, "writeback.default.rate_max_bytes_per_second", "1M/s");
            setKnob(first, "writeback.default.running", "true");
            awaitStats(first, s -> s.contains("\"backingLog\":\"placing\""), "start placing a group", STATE_WAIT);
            first.killMinusNine();
        }
        assertThat(bytesAt("vol", DATA_OFFSET_BYTES, 4096)).as("a committed group pending in the log")
                .isNotEqualTo(new byte[4096]);
        try (ServeProcess second = startJournaled(data, "second")) {
            assertThat(stats(second)).contains("\"backingLog\":\"idle\"");
            assertThat(bytesAt("vol", JOURNALED_DATA_OFFSET_BYTES, expected.length)).isEqualTo(expected);
            assertThat(bytesAt("vol", DATA_OFFSET_BYTES, 4096)).as("retired by the replay").isEqualTo(new byte[4096]);
        }
    }

    /** A cache in a new data directory over a new volume with an 8 MiB backing log (export 64 MiB); its directory. */
    private Path formatJournaledVolume() throws Exception {
        ExternalTool.require("qemu-io");
        Path data = dataDir();
        ExternalTool.Run format = formatVolume(data, "--backing-log", "8M");
        assertThat(format.exitCode()).as(format.describe()).isZero();
        assertThat(format.out()).contains("on s3://" + BUCKET + "/vol: 64.0 MiB (67108864 bytes)");
        return data;
    }

    private ServeProcess startJournaled(Path data, String name) throws Exception {
        return ServeProcess.start(data, name, config() + "knob.writeback.default.ordering=journaled\n", "64M",
                proxy.environment());
    }

    /** qemu-io writing four non-overlapping epochs (a flush after each) into {@code serve}; fills {@code expected}. */
    private static List<String> epochWrites(ServeProcess serve, byte[] expected) {
        long[][] writes = {{0x11, 0, 1 << 20}, {0x22, 2 << 20, 1 << 20}, {0x33, 4 << 20, 2 << 20},
            {0x44, 7 << 20, 1 << 20}};
        List<String> qemuIo = new ArrayList<>(List.of("qemu-io", "-f", "raw"));
        for (long[] w : writes) {
            qemuIo.addAll(List.of("-c", "write -P " + w[0] + " " + w[1] + " " + w[2], "-c", "flush"));
            Arrays.fill(expected, (int) w[1], (int) (w[1] + w[2]), (byte) w[0]);
        }
        qemuIo.add(serve.uri());
        return qemuIo;
    }

    @Test
    void killMinusNineDuringWritebackToS3LosesNothing() throws Exception {
        // Proves crash safety over S3: writes acknowledged by a flush are dirty in the cache; writeback starts
        // staging and PUTting chunks and blockcache is killed (-9) right then; the restarted serve (the same cache,
        // so the same owner: no --take-over) reads every byte back, drains, and the bucket holds every byte.
        ExternalTool.require("nbdcopy");
        Path data = dataDir();
        Path random = RandomFiles.write(dir.resolve("random.bin"), WRITTEN_BYTES, 42);
        try (ServeProcess first = start(data, "first")) {
            run("nbdcopy", "--flush", random.toString(), first.uri());
            run(javaCli("set", "writeback.default.running", "true", "--admin", first.adminHostPort()));
            awaitStats(first, s -> !s.contains("\"completedWriteSectors\":0,"), "start writing back", STATE_WAIT);
            first.killMinusNine();
        }
        try (ServeProcess second = start(data, "second")) {
            Path back = dir.resolve("back.bin");
            run("nbdcopy", second.uri(), back.toString());
            assertThat(Arrays.copyOf(Files.readAllBytes(back), WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
            ExternalTool.Run drain = cli(Map.of(), "drain", "--volume", "default", "--admin", second.adminHostPort());
            assertThat(drain.exitCode()).as(drain.describe() + "\n" + second.log()).isZero();
        }
        assertThat(volumeBytes("vol", 0, WRITTEN_BYTES)).isEqualTo(Files.readAllBytes(random));
    }

    @Test
    void aSecondCacheIsRefusedNamingTheOwnerUntilItTakesOver() throws Exception {
        // Proves one owner per volume across processes: while serve A runs on s3://volumes/vol, serve B (another
        // cache file) exits 1 with one line naming A's cache; with --take-over B starts and the record names B.
        Path dataA = dataDir();
        Path dataB = Files.createDirectories(dir.resolve("data-b"));
        try (ServeProcess a = start(dataA, "a")) {
            ExternalTool.Run refused = serve(dataB, proxy.environment(), "s3://" + BUCKET + "/vol");
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.err().strip().lines()).as(refused.describe()).hasSize(1);
            assertThat(refused.err()).contains("is owned by").contains(dataA.resolve("cache.img").toString())
                    .contains("--take-over");
            assertThat(Files.exists(dataB.resolve("cache.img"))).isFalse();
            try (ServeProcess b = ServeProcess.start(dataB, "b", config() + "take-over=true\n", "64M",
                    proxy.environment())) {
                assertThat(b.log()).contains("took over s3://" + BUCKET + "/vol");
                assertThat(new String(object("vol/owner"))).contains(dataB.resolve("cache.img").toString());
            }
        }
    }

    @Test
    void aNewCacheRefusesAVolumeThatHoldsABackingHeaderUnlessForced() throws Exception {
        // Proves serve with a new cache does not overwrite another cache set's backing header on S3 when the owner
        // record is its own (the cache file was deleted and made again at the same path) or free (deleted): exit 1,
        // one line naming --force, no cache file and not one object changed (the owner record included); with
        // --force it starts and writes a header of its own.
        Path data = dataDir();
        try (ServeProcess serve = start(data, "first")) {
            assertThat(serve.log()).contains("created the S3 volume");
        }
        Files.delete(data.resolve("cache.img"));
        Files.deleteIfExists(data.resolve("damage-map-default.img"));
        Map<String, String> before = objects("vol");
        String uri = "s3://" + BUCKET + "/vol";
        assertRefused(data, proxy.environment(), uri, endpointFlag(), "holds a blockcache backing header");
        assertThat(objects("vol")).isEqualTo(before);
        try (S3Client client = proxy.client()) {
            client.deleteObject(b -> b.bucket(BUCKET).key("vol/owner"));
        }
        before = objects("vol");
        assertRefused(data, proxy.environment(), uri, endpointFlag(), "--force");
        assertThat(objects("vol")).isEqualTo(before);
        assertThat(Files.exists(data.resolve("cache.img"))).isFalse();

        try (ServeProcess forced = ServeProcess.start(data, "forced", config(), "64M", proxy.environment(),
                "--force")) {
            assertThat(forced.log()).doesNotContain("refusing");
        }
        String header = "vol/" + S3Volume.chunkName(0);
        assertThat(sha256(object(header))).isNotEqualTo(before.get(header));
    }

    @Test
    void badS3LocationsAreOneLineErrorsAndNothingIsWritten() throws Exception {
        // Proves the start-up refusals: an endpoint nobody listens on, a bucket that does not exist, wrong
        // credentials, and (after a first serve) a cache whose volume metadata is gone; each exit 1 with one line,
        // no cache file created and nothing in the bucket under the prefix.
        Path data = dataDir();
        String uri = "s3://" + BUCKET + "/vol";
        Map<String, String> env = proxy.environment();
        int deadPort = RemoteNbdServer.freePort();
        assertRefused(data, env, uri, "--s3-endpoint=http://127.0.0.1:" + deadPort, "cannot reach the S3 endpoint");
        assertRefused(data, env, "s3://no-such-bucket/vol", endpointFlag(), "bucket \"no-such-bucket\" does not exist");
        Map<String, String> wrongKey = new HashMap<>(env);
        wrongKey.put("AWS_SECRET_ACCESS_KEY", "wrong");
        assertRefused(data, wrongKey, uri, endpointFlag(), "HTTP 403");
        assertThat(Files.exists(data.resolve("cache.img"))).isFalse();
        assertThat(keys("vol")).isEmpty();
        try (ServeProcess serve = start(data, "first")) {
            assertThat(serve.log()).contains("created the S3 volume");
        }
        try (S3Client client = proxy.client()) {
            client.deleteObject(b -> b.bucket(BUCKET).key("vol/volume"));
        }
        List<String> before = keys("vol");
        assertRefused(data, env, uri, endpointFlag(), "holds no blockcache volume");
        assertThat(keys("vol")).isEqualTo(before);
    }

    private void assertRefused(Path data, Map<String, String> env, String uri, String endpointFlag, String expected)
            throws Exception {
        ExternalTool.Run run = serve(data, env, uri, endpointFlag);
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(1);
        assertThat(run.err().strip().lines()).as(run.describe()).hasSize(1);
        assertThat(run.err()).as(run.describe()).contains(expected);
    }

    /** {@code format} of a 64 MiB cache in {@code data} over a new 64 MiB volume {@code vol}, with {@code more}. */
    private ExternalTool.Run formatVolume(Path data, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("format", "--cache", data.resolve("cache.img").toString(),
                "--cache-size", "64M", "--backing", "s3://" + BUCKET + "/vol", "--backing-size", "64M",
                "--s3-endpoint", proxy.endpoint().toString()));
        args.addAll(Arrays.asList(more));
        return cli(proxy.environment(), args.toArray(String[]::new));
    }

    private ExternalTool.Run serve(Path data, Map<String, String> env, String uri, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("serve", "--data-dir", data.toString(), "--cache-size", "64M",
                "--backing-size", "64M", "--backing", "default=" + uri, "--nbd-listen", "127.0.0.1:0",
                "--admin-listen", "127.0.0.1:0"));
        args.addAll(more.length == 0 ? List.of(endpointFlag()) : Arrays.asList(more));
        return cli(env, args.toArray(String[]::new));
    }

    @Test
    void anS3VolumeIsAddedLiveKeptAcrossARestartAndRemovedLive() throws Exception {
        // Proves that `volume add v2=s3://...` on a running serve creates the S3 volume (metadata, owner record,
        // backing header in chunk 0) and exports it at once; that a restart with the same command line, which names no
        // v2, opens it at the location the cache recorded, reached with serve's --s3-endpoint, and reads back what was
        // written; and that `volume remove --drain` detaches it with that data in its chunk objects.
        Path data = dataDir();
        String config = "s3-endpoint=" + proxy.endpoint() + "\n";
        byte[] written = Files.readAllBytes(RandomFiles.write(dir.resolve("v2.bin"), 1 << 20, 43));
        try (ServeProcess serve = ServeProcess.start(data, "first", config, "64M", proxy.environment())) {
            ExternalTool.Run added = cli(proxy.environment(), "volume", "add", "v2=s3://" + BUCKET + "/live", "--size",
                    "8M", "--admin", serve.adminHostPort());
            assertThat(added.exitCode()).as(added.describe() + "\n" + serve.log()).isZero();
            assertThat(keys("live")).contains("live/volume", "live/owner", "live/chunk-0000000000000000");
            try (NbdTestClient v2 = nbd(serve, "v2")) {
                assertThat(v2.exportSizeBytes()).isEqualTo(8L << 20);
                assertThat(v2.call(0, NbdProtocol.CMD_WRITE, 0, written.length, written).error()).isZero();
                assertThat(v2.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
            }
        }
        try (ServeProcess serve = ServeProcess.start(data, "second", config, "64M", proxy.environment())) {
            try (NbdTestClient v2 = nbd(serve, "v2")) {
                NbdTestClient.Reply read = v2.call(0, NbdProtocol.CMD_READ, 0, written.length, null);
                assertThat(read.error()).isZero();
                assertThat(read.data()).as("v2 after the restart").isEqualTo(written);
            }
            ExternalTool.Run removed = cli(proxy.environment(), "volume", "remove", "v2", "--drain", "--admin",
                    serve.adminHostPort());
            assertThat(removed.exitCode()).as(removed.describe() + "\n" + serve.log()).isZero();
            ExternalTool.Run listed = cli(proxy.environment(), "volume", "list", "--json", "--admin",
                    serve.adminHostPort());
            assertThat(listed.out()).contains("\"name\":\"default\"").doesNotContain("\"v2\"");
        }
        assertThat(volumeBytes("live", 0, written.length)).as("v2's data in its chunk objects").isEqualTo(written);
    }

    @Test
    void aKillNineDuringAnS3AddIsFollowedByACleanOpenAndTheAddDoneAgain() throws Exception {
        // Proves that SIGKILL while `volume add v2=s3://...` is under way (the kill 30 ms after the request) leaves a
        // cache the next start opens, with v2 attached or not; that the add then succeeds (a volume object and owner
        // record the cut add left are this cache's, taken back); and that v2 keeps a flushed write across a restart.
        Path data = dataDir();
        String config = "s3-endpoint=" + proxy.endpoint() + "\n";
        try (ServeProcess serve = ServeProcess.start(data, "first", config, "64M", proxy.environment())) {
            ServeAdmin.killDuring(serve, "POST", "/api/volumes?name=v2&uri=s3://" + BUCKET + "/cut&size=8M", 30);
        }
        byte[] block = new byte[4096];
        Arrays.fill(block, (byte) 0x5A);
        try (ServeProcess serve = ServeProcess.start(data, "second", config, "64M", proxy.environment())) {
            boolean attached;
            try (NbdTestClient probe = nbd(serve, "v2")) {
                attached = true;
            } catch (java.io.IOException unknownExport) {
                attached = false;
            }
            if (!attached) {
                ExternalTool.Run again = cli(proxy.environment(), "volume", "add", "v2=s3://" + BUCKET + "/cut",
                        "--size", "8M", "--admin", serve.adminHostPort());
                assertThat(again.exitCode()).as(again.describe() + "\n" + serve.log()).isZero();
            }
            try (NbdTestClient v2 = nbd(serve, "v2")) {
                assertThat(v2.exportSizeBytes()).isEqualTo(8L << 20);
                assertThat(v2.call(0, NbdProtocol.CMD_WRITE, 4096, block.length, block).error()).isZero();
                assertThat(v2.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
            }
        }
        try (ServeProcess serve = ServeProcess.start(data, "third", config, "64M", proxy.environment());
             NbdTestClient v2 = nbd(serve, "v2")) {
            NbdTestClient.Reply read = v2.call(0, NbdProtocol.CMD_READ, 4096, block.length, null);
            assertThat(read.error()).isZero();
            assertThat(read.data()).isEqualTo(block);
        }
    }

    private static NbdTestClient nbd(ServeProcess serve, String export) throws java.io.IOException {
        return new NbdTestClient(new java.net.InetSocketAddress("127.0.0.1", serve.nbdPort())).readTimeoutMs(60_000)
                .go(export, false);
    }

    private String endpointFlag() {
        return "--s3-endpoint=" + proxy.endpoint();
    }

    private ServeProcess start(Path data, String name) throws Exception {
        return ServeProcess.start(data, name, config(), "64M", proxy.environment());
    }

    private String config() {
        return "backing=default=s3://" + BUCKET + "/vol\ns3-endpoint=" + proxy.endpoint() + "\n" + KEEP_DIRTY;
    }

    /** Volume bytes [offset, offset + length) as an independent client reads them from the chunk objects. */
    private byte[] volumeBytes(String prefix, long offsetBytes, int lengthBytes) {
        return bytesAt(prefix, DATA_OFFSET_BYTES + offsetBytes, lengthBytes);
    }

    /** Device bytes [offset, offset + length) of the volume under {@code prefix}, read from its chunk objects. */
    private byte[] bytesAt(String prefix, long offsetBytes, int lengthBytes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long chunkBytes = S3Volume.CHUNK_BYTES_DEFAULT;
        long from = offsetBytes;
        long to = from + lengthBytes;
        for (long index = from / chunkBytes; index * chunkBytes < to; index++) {
            byte[] chunk = object(prefix + "/" + S3Volume.chunkName(index));
            if (chunk == null) {
                chunk = new byte[(int) chunkBytes];
            }
            int start = (int) Math.max(0, from - index * chunkBytes);
            int end = (int) Math.min(chunkBytes, to - index * chunkBytes);
            bytes.write(chunk, start, end - start);
        }
        return bytes.toByteArray();
    }

    private byte[] object(String key) {
        try (S3Client client = proxy.client()) {
            return client.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
        } catch (NoSuchKeyException missing) {
            return null;
        }
    }

    /** Every object under the prefix, key to the SHA-256 of its contents, in key order. */
    private Map<String, String> objects(String prefix) throws Exception {
        Map<String, String> objects = new java.util.TreeMap<>();
        for (String key : keys(prefix)) {
            objects.put(key, sha256(object(key)));
        }
        return objects;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private List<String> keys(String prefix) {
        try (S3Client client = proxy.client()) {
            return client.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix + "/")).contents().stream()
                    .map(S3Object::key).sorted().toList();
        }
    }

    private Path dataDir() throws Exception {
        return Files.createDirectories(dir.resolve("data"));
    }

    private void run(String... command) throws Exception {
        run(List.of(command));
    }

    private void run(List<String> command) throws Exception {
        ExternalTool.Run run = ExternalTool.run(dir, TOOL_TIMEOUT, command);
        assertThat(run.exitCode()).as(command + "\n" + run.describe()).isZero();
    }

    private ExternalTool.Run cli(Map<String, String> env, String... args) throws Exception {
        return ExternalTool.run(dir, TOOL_TIMEOUT, javaCli(args), env);
    }
}

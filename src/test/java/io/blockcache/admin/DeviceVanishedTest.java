package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoResult;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.format.BackingHeader;
import io.blockcache.host.CacheHost;
import io.blockcache.host.HostException;
import io.blockcache.host.HostFiles;
import io.blockcache.writeback.Writeback;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files deleted under a running cache (docs/OPERATIONS.md "A device vanished"), end to end: a {@link CacheHost} on
 * real files, its device watcher, the admin API's stats and metrics, drains, the shutdown and the next start.
 */
class DeviceVanishedTest {
    private static final int DIRTY_BYTES = 1 << 20;
    private static final long DEADLINE_MS = 15_000;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private CacheHost host;
    private AdminServer admin;

    @AfterEach
    void stop() {
        if (admin != null) {
            admin.close();
        }
        if (host != null) {
            host.close();
        }
    }

    private Path cacheFile() {
        return dir.resolve("cache.img");
    }

    private Path backingFile() {
        return dir.resolve("vol.img");
    }

    /** Opens the host (writeback off, so written data stays dirty until asked) and an admin server on it. */
    private void open() throws Exception {
        HostFiles files = HostFiles.withFiles(cacheFile(), 64L << 20, Map.of("vol", backingFile()), 64L << 20,
                CacheSetOptions.defaults().withBucketSizeBytes(128 << 10), Map.of("writeback.vol.running", "false"));
        host = CacheHost.open(files, "device-vanished-test", io.blockcache.log.EventSink.lines(log::add),
                progress -> { });
        admin = new AdminServer(new InetSocketAddress("127.0.0.1", 0), host.cacheSet(), host.cacheDevice(),
                host.backings());
        admin.start();
    }

    private void closeHost() {
        admin.close();
        admin = null;
        host.close();
        host = null;
    }

    private static byte[] pattern() {
        byte[] data = new byte[DIRTY_BYTES];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        return data;
    }

    private void writeDirty(byte[] data) throws Exception {
        assertThat(host.<IoResult>onLoop(done -> host.cacheSet().volume("vol").write(0, ByteBuffer.wrap(data), false,
                done::accept))).isEqualTo(IoResult.OK);
        assertThat(host.<IoResult>onLoop(done -> host.cacheSet().volume("vol").flush(done::accept)))
                .isEqualTo(IoResult.OK);
    }

    private byte[] readVolume() throws Exception {
        ByteBuffer read = ByteBuffer.allocate(DIRTY_BYTES);
        assertThat(host.<IoResult>onLoop(done -> host.cacheSet().volume("vol").read(0, read, done::accept)))
                .isEqualTo(IoResult.OK);
        return read.array();
    }

    private Writeback writeback() {
        return host.cacheSet().writeback("vol");
    }

    private String get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.address().getPort() + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** Polls {@code path} until its body satisfies {@code test}, within {@link #DEADLINE_MS}; returns the body. */
    private String awaitBody(String path, Predicate<String> test) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_MS * 1_000_000;
        String body = get(path);
        while (!test.test(body) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000L); // a poll interval: the watcher looks once a second
            body = get(path);
        }
        return body;
    }

    private static byte[] readAt(FileChannel channel, long offsetBytes, int lengthBytes) throws Exception {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, offsetBytes + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.array();
    }

    @Test
    void aDeletedBackingFileHoldsWritebackFailsTheDrainKeepsTheDirtyDataAndRestoresAfterARestart() throws Exception {
        // Proves the backing-file path: the watcher finds the delete on its own, stats and metrics say so, writeback
        // writes nothing into the deleted file whatever the knob and a drain say, the drain fails naming the file,
        // the dirty data reads back and survives the stop, and a restart on the restored file writes it back.
        open();
        byte[] data = pattern();
        writeDirty(data);
        String deleted = "backing file " + backingFile() + " was deleted while open";
        try (FileChannel inode = FileChannel.open(backingFile(), StandardOpenOption.READ)) {
            Files.delete(backingFile());

            String stats = awaitBody("/api/stats", body -> body.contains(deleted));
            assertThat(stats).contains("\"degraded\":\"" + deleted).contains("\"changed\":\"file " + backingFile()
                    + " was deleted while open");
            assertThat(get("/metrics")).contains("blockcache_volume_degraded{volume=\"vol\"} 1");
            assertThat(log).filteredOn(line -> line.contains(deleted)).hasSize(1);

            assertThat(host.applyKnobs(Map.of("writeback.vol.running", "true"))).isNull();
            IoResult drained = host.onLoop(done -> host.cacheSet().drain("vol", progress -> { }, done::accept));
            assertThat(drained.ok()).isFalse();
            assertThat(drained.message()).startsWith("drain stopped: " + deleted)
                    .contains("restore it (or its replacement) at that path and restart")
                    .endsWith("the dirty data stays in the cache");
            assertThat(host.<Long>onLoop(done -> done.accept(writeback().dirtyBytes()))).isEqualTo(DIRTY_BYTES);
            assertThat(host.<Long>onLoop(done -> done.accept(writeback().counters().backingWriteSectors())))
                    .isZero();
            assertThat(readVolume()).isEqualTo(data);
            long dataOffset = BackingHeader.DEFAULT_DATA_OFFSET_BYTES;
            assertThat(readAt(inode, dataOffset, DIRTY_BYTES)).as("nothing was written into the deleted file")
                    .isEqualTo(new byte[DIRTY_BYTES]);

            // The checkpoint flushes the backing device first, and the fenced device refuses: the stop is not clean,
            // so the next start recovers the dirty data from the journal, as after a crash.
            IoResult shutdown = host.shutdown();
            assertThat(shutdown.ok()).isFalse();
            assertThat(shutdown.message()).contains("refused, the file " + backingFile() + " was deleted while open");
            closeHost();
            assertThatThrownBy(this::open).isInstanceOf(HostException.class)
                    .hasMessageContaining("backing file " + backingFile() + " of export \"vol\" is missing");

            // The runbook's restore: the deleted file's contents, copied back to its path.
            try (FileChannel restored = FileChannel.open(backingFile(), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                restored.transferFrom(inode.position(0), 0, inode.size());
            }
        }
        open();
        assertThat(host.applyKnobs(Map.of("writeback.vol.running", "true"))).isNull();
        assertThat(host.<IoResult>onLoop(done -> host.cacheSet().drain("vol", progress -> { }, done::accept)))
                .isEqualTo(IoResult.OK);
        try (FileChannel backing = FileChannel.open(backingFile(), StandardOpenOption.READ)) {
            assertThat(readAt(backing, BackingHeader.DEFAULT_DATA_OFFSET_BYTES, DIRTY_BYTES)).isEqualTo(data);
        }
    }

    @Test
    void aDeletedCacheFileIsReportedAndItsShutdownIsNotCalledClean() throws Exception {
        // Proves the cache-file path: stats, metrics and one log line tell the operator to drain before stopping,
        // the volume keeps serving, and a shutdown with dirty data left fails naming the file and the bytes lost.
        open();
        byte[] data = pattern();
        writeDirty(data);
        Files.delete(cacheFile());

        String deleted = "file " + cacheFile() + " was deleted while open";
        String stats = awaitBody("/api/stats", body -> body.contains(deleted));
        assertThat(stats).contains("\"changed\":\"" + deleted);
        assertThat(get("/metrics")).contains("blockcache_cache_device_changed 1");
        assertThat(log).filteredOn(line -> line.startsWith("cache " + deleted))
                .singleElement().asString().contains("drain every volume");
        assertThat(readVolume()).isEqualTo(data);

        IoResult shutdown = host.shutdown();
        assertThat(shutdown.ok()).isFalse();
        assertThat(shutdown.message()).startsWith("the cache " + deleted)
                .contains("the " + DIRTY_BYTES + " dirty bytes not drained");
    }
}

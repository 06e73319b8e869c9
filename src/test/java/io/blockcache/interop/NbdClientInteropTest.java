package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.backing.NbdDevice;
import io.blockcache.backing.NbdUri;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The NBD client ({@code backing.NbdDevice}) against real servers: nbdkit's memory plugin and qemu-nbd. */
@Timeout(120)
class NbdClientInteropTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int BLOCK_BYTES = 4096;
    /** Writes in flight at once in the many-in-flight test: far above one connection's worth. */
    private static final int WRITES_IN_FLIGHT = 256;

    @TempDir
    Path dir;
    private final RealLoop loop = new RealLoop("nbd-client-test");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable each : toClose.reversed()) {
            each.close();
        }
        loop.close();
    }

    @Test
    void manyWritesInFlightReadBackOverMultiConnWithStructuredReplies() throws Exception {
        // Proves the client against nbdkit: structured replies and multi-conn negotiated, 256 random 4 KiB writes
        // in flight at once all land, a read of never-written space is zeroes (a hole chunk), flush succeeds.
        RemoteNbdServer server = closeLater(RemoteNbdServer.nbdkit(dir, List.of("memory", "64M")));
        NbdDevice device = open(server.uri("any"), 4);
        assertThat(device.info().structuredReplies()).isTrue();
        assertThat(device.connections()).isEqualTo(4);
        assertThat(device.sizeBytes()).isEqualTo(64L << 20);
        Random random = new Random(7);
        byte[][] blocks = new byte[WRITES_IN_FLIGHT][BLOCK_BYTES];
        List<IoResult> results = LoopCalls.await(loop, done -> {
            List<IoResult> all = new ArrayList<>();
            for (int i = 0; i < WRITES_IN_FLIGHT; i++) {
                random.nextBytes(blocks[i]);
                device.write((long) i * 2 * BLOCK_BYTES, ByteBuffer.wrap(blocks[i]), i % 7 == 0, result -> {
                    all.add(result);
                    if (all.size() == WRITES_IN_FLIGHT) {
                        done.accept(all);
                    }
                });
            }
        }, WAIT);
        assertThat(results).allMatch(IoResult::ok);
        assertThat(call(done -> device.flush(done::accept)).ok()).isTrue();
        for (int i = 0; i < WRITES_IN_FLIGHT; i += 17) {
            assertThat(read(device, (long) i * 2 * BLOCK_BYTES, BLOCK_BYTES)).isEqualTo(blocks[i]);
        }
        byte[] hole = read(device, BLOCK_BYTES, BLOCK_BYTES); // between two written blocks
        assertThat(hole).isEqualTo(new byte[BLOCK_BYTES]);
        assertThat(call(done -> device.discard(0, 2 * BLOCK_BYTES, done::accept)).ok()).isTrue();
        assertThat(read(device, 0, BLOCK_BYTES)).isEqualTo(new byte[BLOCK_BYTES]); // nbdkit memory trims to zeroes
        assertThat(device.unflushedBytes()).isZero();
        assertThat(device.counters().completed(io.blockcache.device.DeviceOp.WRITE)).isEqualTo(WRITES_IN_FLIGHT);
    }

    @Test
    void writesFlushTrimAndReadsThroughQemuNbdReachTheFile() throws Exception {
        // Proves the client against qemu-nbd: written and flushed data is in the exported file byte for byte, a
        // large read spanning written and unwritten space is exact, and TRIM is accepted (qemu-nbd's default
        // --discard=ignore keeps the data, which the BlockDevice contract allows).
        Path file = dir.resolve("export.img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(16L << 20);
        }
        RemoteNbdServer server = closeLater(RemoteNbdServer.qemuNbd(dir, file, "vol"));
        NbdDevice device = open(server.uri("vol"), 4);
        byte[] data = new byte[1 << 20];
        new Random(11).nextBytes(data);
        assertThat(call(done -> device.write(3L << 20, ByteBuffer.wrap(data), false, done::accept)).ok()).isTrue();
        assertThat(call(done -> device.flush(done::accept)).ok()).isTrue();
        byte[] onDisk = new byte[data.length];
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            raf.seek(3L << 20);
            raf.readFully(onDisk);
        }
        assertThat(onDisk).isEqualTo(data);
        byte[] span = read(device, (3L << 20) - 8192, data.length + 8192);
        assertThat(Arrays.copyOfRange(span, 0, 8192)).isEqualTo(new byte[8192]);
        assertThat(Arrays.copyOfRange(span, 8192, span.length)).isEqualTo(data);
        assertThat(call(done -> device.discard(3L << 20, 65536, done::accept)).ok()).isTrue();
        assertThat(call(done -> device.flush(done::accept)).ok()).isTrue();
        assertThat(device.counters().completed(io.blockcache.device.DeviceOp.DISCARD)).isEqualTo(1);
    }

    @Test
    void anUnreachableServerAndAMissingExportAreOneLineErrors() throws Exception {
        // Proves the start-up errors: nothing listening, and an export the server does not have, each an
        // IOException whose one-line message names the URI and the cause.
        int port = RemoteNbdServer.freePort();
        assertThatThrownBy(() -> NbdDevice.open(loop, NbdUri.parse("nbd://127.0.0.1:" + port + "/x"), 1))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("nbd://127.0.0.1:" + port + "/x: cannot connect")
                .hasMessageNotContaining("\n");
        Path file = dir.resolve("small.img");
        Files.write(file, new byte[1 << 20]);
        RemoteNbdServer server = closeLater(RemoteNbdServer.qemuNbd(dir, file, "vol"));
        assertThatThrownBy(() -> NbdDevice.open(loop, NbdUri.parse(server.uri("nope")), 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("has no export named \"nope\"")
                .hasMessageNotContaining("\n");
    }

    @Test
    void serverGoingAwayFailsRequestsHoldsFlushesAndReplaysUnflushedWrites() throws Exception {
        // Proves the reconnect: nbdkit memory killed after unflushed writes (it loses them); reads fail while it is
        // away, a flush waits; restarted on the same port, the client reconnects, writes them again, and the flush
        // that waited succeeds over data that reads back exactly.
        RemoteNbdServer server = closeLater(RemoteNbdServer.nbdkit(dir, List.of("memory", "16M")));
        NbdDevice device = open(server.uri(""), 2);
        byte[] data = new byte[64 * 1024];
        new Random(3).nextBytes(data);
        assertThat(call(done -> device.write(1L << 20, ByteBuffer.wrap(data), false, done::accept)).ok()).isTrue();
        assertThat(device.unflushedBytes()).isEqualTo(data.length);
        assertThat(device.connected()).isTrue();
        assertThat(device.replayLogBytes()).isEqualTo(data.length);
        server.kill();
        IoResult whileAway = awaitFailure(device);
        assertThat(whileAway.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(device.state()).startsWith("away:");
        assertThat(device.connected()).as("the stats' view while away").isFalse();
        assertThat(device.breaks()).isEqualTo(1);
        java.util.concurrent.CompletableFuture<IoResult> flushed = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> device.flush(flushed::complete));
        server.start();
        IoResult flush = flushed.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(flush.ok()).as(flush.toString()).isTrue();
        assertThat(device.reconnects()).isEqualTo(1);
        assertThat(device.connected()).isTrue();
        assertThat(device.replayedWrites()).isEqualTo(1);
        assertThat(read(device, 1L << 20, data.length)).isEqualTo(data);
        assertThat(device.unflushedBytes()).isZero();
        assertThat(device.replayLogBytes()).isZero();
    }

    @Test
    void aRequestTheServerSitsOnTimesOutBreaksTheConnectionAndTheClientReconnects() throws Exception {
        // Proves the request timeout: behind nbdkit's delay filter a write takes 5 s; with a 300 ms timeout the write
        // fails, the connection is given up and the client reconnects by itself; a flush issued meanwhile waits
        // for the new connection (as after any break) and succeeds, and reads keep working.
        RemoteNbdServer server = closeLater(RemoteNbdServer.nbdkit(dir, List.of("--filter=delay", "memory", "16M",
                "delay-write=5")));
        NbdDevice device = NbdDevice.open(loop, NbdUri.parse(server.uri("")), 1, 300_000_000L);
        toClose.add(() -> LoopCalls.await(loop, done -> {
            device.close();
            done.accept(null);
        }, WAIT));
        long startNs = System.nanoTime();
        IoResult write = call(done -> device.write(0, ByteBuffer.allocate(BLOCK_BYTES), false, done::accept));
        long tookMs = (System.nanoTime() - startNs) / 1_000_000L;
        assertThat(write.status()).as(write.toString()).isEqualTo(IoStatus.IO_ERROR);
        // Usually the timeout's own message; once under load nbdkit's answer came first: ESHUTDOWN (108), its delay
        // cut short as the timeout closed the connection. Either way the timeout fired (counted below) and acted.
        assertThat(write.message()).containsAnyOf("request timeout 300 ms", "server error 108");
        assertThat(tookMs).as("failed by the timeout, not by the server's 5 s").isLessThan(4_000);
        assertThat(device.requestTimeouts()).isEqualTo(1);
        IoResult flush = call(done -> device.flush(done::accept));
        assertThat(flush.ok()).as(flush.toString()).isTrue();
        assertThat(device.reconnects()).isEqualTo(1);
        assertThat(device.connected()).isTrue();
        assertThat(read(device, 0, BLOCK_BYTES)).isEqualTo(new byte[BLOCK_BYTES]);
    }

    @Test
    void writeZeroesIsSentAsOneCommandWithoutPayloadAndReplayedAfterABreak() throws Exception {
        // Proves WRITE_ZEROES mapped through: nbdkit memory offers it, 1 GiB is zeroed in one request (a payload
        // write that large would be refused: it is far past the server's largest request), the data under it reads
        // as zeroes, the replay log holds the range without bytes, and after the server is killed and restarted the
        // zeroing is replayed before the waiting flush succeeds.
        RemoteNbdServer server = closeLater(RemoteNbdServer.nbdkit(dir, List.of("memory", "2G")));
        NbdDevice device = open(server.uri(""), 1);
        assertThat(device.writesZeroes()).isTrue();
        byte[] data = new byte[BLOCK_BYTES];
        new Random(5).nextBytes(data);
        assertThat(call(done -> device.write(1L << 20, ByteBuffer.wrap(data), false, done::accept)).ok()).isTrue();
        assertThat(call(done -> device.flush(done::accept)).ok()).isTrue();
        IoResult zeroed = call(done -> device.writeZeroes(0, 1L << 30, false, done::accept));
        assertThat(zeroed.ok()).as(zeroed.toString()).isTrue();
        assertThat(1L << 30).isGreaterThan(device.info().payloadBytesMax());
        assertThat(read(device, 1L << 20, BLOCK_BYTES)).isEqualTo(new byte[BLOCK_BYTES]);
        assertThat(device.replayLogBytes()).as("a zeroed range holds no bytes").isZero();
        server.kill();
        awaitFailure(device);
        java.util.concurrent.CompletableFuture<IoResult> flushed = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> device.flush(flushed::complete));
        server.start();
        IoResult flush = flushed.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertThat(flush.ok()).as(flush.toString()).isTrue();
        assertThat(device.replayedWrites()).as("the zeroing, sent again").isEqualTo(1);
    }

    @Test
    void moreUnflushedWritesThanTheReplayLogHoldsAreParkedFlushedAndAllLand() throws Exception {
        // Proves the replay log's bound: 80 MiB of writes submitted at once without a flush (the log holds
        // 64 MiB, writes in flight included) all complete, the client flushes on its own to make room, the log
        // never holds more than its bound, and every block reads back.
        RemoteNbdServer server = closeLater(RemoteNbdServer.nbdkit(dir, List.of("memory", "96M")));
        NbdDevice device = open(server.uri(""), 1);
        int chunkBytes = 1 << 20;
        int chunks = 80;
        long[] unflushedMax = new long[1];
        List<IoResult> results = LoopCalls.await(loop, done -> {
            List<IoResult> all = new ArrayList<>();
            for (int i = 0; i < chunks; i++) {
                byte[] chunk = new byte[chunkBytes];
                Arrays.fill(chunk, (byte) (i + 1));
                device.write((long) i * chunkBytes, ByteBuffer.wrap(chunk), false, result -> {
                    all.add(result);
                    unflushedMax[0] = Math.max(unflushedMax[0], device.unflushedBytes());
                    if (all.size() == chunks) {
                        done.accept(all);
                    }
                });
            }
        }, WAIT);
        assertThat(results).allMatch(IoResult::ok);
        assertThat(unflushedMax[0]).isPositive().isLessThanOrEqualTo(64L << 20);
        for (int i = 0; i < chunks; i += 13) {
            byte[] expected = new byte[4096];
            Arrays.fill(expected, (byte) (i + 1));
            assertThat(read(device, (long) i * chunkBytes + chunkBytes - 4096, 4096)).isEqualTo(expected);
        }
    }

    /** Reads until one fails (the client learns of the kill when the socket reports it), at most WAIT. */
    private IoResult awaitFailure(NbdDevice device) throws InterruptedException {
        long deadlineNs = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadlineNs) {
            IoResult result = call(done -> device.read(0, ByteBuffer.allocate(BLOCK_BYTES), done::accept));
            if (!result.ok()) {
                return result;
            }
            Thread.sleep(20); // the kill is asynchronous; this polls the client's view of it, bounded above
        }
        throw new AssertionError("reads kept succeeding after the server was killed");
    }

    private NbdDevice open(String uri, int connections) throws IOException {
        NbdDevice device = NbdDevice.open(loop, NbdUri.parse(uri), connections);
        toClose.add(() -> LoopCalls.await(loop, done -> {
            device.close();
            done.accept(null);
        }, WAIT));
        return device;
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        toClose.add(resource);
        return resource;
    }

    private IoResult call(java.util.function.Consumer<java.util.function.Consumer<IoResult>> operation) {
        return LoopCalls.await(loop, operation, WAIT);
    }

    private byte[] read(NbdDevice device, long offsetBytes, int lengthBytes) {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        Arrays.fill(buffer.array(), (byte) 0x5A); // so a hole that is not zeroed shows
        IoResult result = call(done -> device.read(offsetBytes, buffer, done::accept));
        assertThat(result.ok()).as(result.toString()).isTrue();
        return buffer.array();
    }
}

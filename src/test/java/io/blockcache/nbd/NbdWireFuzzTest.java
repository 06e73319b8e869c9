package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * A million malformed or random frames over the wire, in both phases, while well-formed clients
 * work beside them. Replay a failure with {@code -Dblockcache.wireFuzzSeed=S} (each worker's frames are a function
 * of the seed; only the interleaving of the workers differs); {@code -Dblockcache.wireFuzzFrames=N} for more.
 */
class NbdWireFuzzTest {
    static final long SEED_DEFAULT = 20_261_201L;
    static final long FRAMES_DEFAULT = 1_000_000L;
    static final int WORKERS = 2;
    /** A run that takes longer than this is a hang, whatever the machine's load. */
    static final Duration RUN_MAX = Duration.ofMinutes(5);
    /** The first half of "default" holds a pattern no fuzz frame may change; the good client uses the second. */
    static final long PATTERN_BYTES = NbdFixture.VOLUME_BYTES / 2;
    static final int MILESTONES = 5;

    @Test
    void aMillionMalformedFramesCrashNothingHangNothingWriteNothingAndWellFormedClientsAreServed() throws Exception {
        // Proves: every malformed frame gets the answer it is owed (an error reply, or a closed connection), the
        // server never stops or hangs, its buffers stay within the budget and direct memory within the budget plus
        // the pool's retained bytes, the pattern region is untouched, and a well-formed client is served
        // correctly in every fifth of the run.
        long seed = Long.getLong("blockcache.wireFuzzSeed", SEED_DEFAULT);
        long framesTarget = Long.getLong("blockcache.wireFuzzFrames", FRAMES_DEFAULT);
        String replay = " (seed " + seed + "; replay: ./mvnw -B -o test -Dtest=NbdWireFuzzTest"
                + " -Dblockcache.wireFuzzSeed=" + seed + ")";
        NbdLimits limits = NbdLimits.DEFAULTS.withBufferBytesMax(NbdLimits.BUFFER_BYTES_MIN);
        Prng root = new Prng(seed);
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers())) {
            byte[] pattern = new byte[(int) PATTERN_BYTES];
            root.split().nextBytes(pattern);
            try (NbdTestClient writer = fixture.client().go("default", false)) {
                for (int offset = 0; offset < pattern.length; offset += 1 << 20) {
                    assertThat(writer.write(offset, Arrays.copyOfRange(pattern, offset, offset + (1 << 20)), 0))
                            .isZero();
                }
            }
            BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                    .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
            long directBaselineBytes = direct.getMemoryUsed();
            AtomicLong directPeakBytes = new AtomicLong(directBaselineBytes);
            AtomicLong frames = new AtomicLong();
            AtomicBoolean fuzzing = new AtomicBoolean(true);
            AtomicLongArray goodOpsAtMilestone = new AtomicLongArray(MILESTONES + 1);
            GoodClient good = new GoodClient(fixture, root.split(), PATTERN_BYTES, direct, directPeakBytes);
            List<WireFuzzClient> clients = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(WORKERS + 1);
            long startNs = System.nanoTime();
            try {
                Future<?> goodRun = threads.submit(() -> good.runWhile(fuzzing));
                List<Future<?>> workers = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    WireFuzzClient client = new WireFuzzClient(fixture.server.address(), root.split(),
                            NbdFixture.VOLUME_BYTES);
                    clients.add(client);
                    int worker = w;
                    workers.add(threads.submit(() -> {
                        long before = 0;
                        while (frames.get() < framesTarget) {
                            try {
                                client.connection();
                            } catch (Exception e) {
                                throw new AssertionError("worker " + worker + ", connection "
                                        + client.connectionsOpened() + ", after " + client.framesSent()
                                        + " frames: " + e + replay, e);
                            }
                            long total = frames.addAndGet(client.framesSent() - before);
                            before = client.framesSent();
                            int milestone = (int) Math.min(MILESTONES, total * MILESTONES / framesTarget);
                            goodOpsAtMilestone.compareAndSet(milestone, 0, good.operations());
                        }
                        return null;
                    }));
                }
                long deadlineNs = startNs + RUN_MAX.toNanos();
                for (Future<?> worker : workers) {
                    worker.get(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                fuzzing.set(false);
                goodRun.get(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            } finally {
                fuzzing.set(false);
                threads.shutdownNow();
            }
            long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
            NbdServerStats stats = fixture.server.stats();
            long connections = clients.stream().mapToLong(WireFuzzClient::connectionsOpened).sum();
            long killed = clients.stream().mapToLong(WireFuzzClient::connectionsKilled).sum();
            System.out.printf("wire fuzz: %,d frames on %,d connections (%,d cut off by the server) in %,d ms;"
                    + " good client: %,d operations; protocol errors %,d; direct memory peak %,d bytes above"
                    + " baseline; buffer budget peak %,d of %,d bytes; seed %d%n", frames.get(), connections, killed,
                    elapsedMs, good.operations(), stats.protocolErrors(), directPeakBytes.get() - directBaselineBytes,
                    stats.bufferBytesInUsePeak(), stats.bufferBytesMax(), seed);

            assertThat(frames.get()).as("frames" + replay).isGreaterThanOrEqualTo(framesTarget);
            assertThat(fixture.loop.failure()).as("loop failure" + replay).isNull();
            assertThat(killed).as("connections the server had to end" + replay).isGreaterThan(connections / 10);
            assertThat(stats.protocolErrors()).as("protocol errors" + replay).isPositive();
            for (int m = 1; m <= MILESTONES; m++) {
                assertThat(goodOpsAtMilestone.get(m)).as("good operations by fifth " + m + replay)
                        .isGreaterThan(goodOpsAtMilestone.get(m - 1));
            }
            // Memory: the budget's own counters, and the JVM's direct-buffer pool.
            assertThat(stats.bufferBytesInUsePeak()).as("budget peak" + replay).isLessThanOrEqualTo(
                    stats.bufferBytesMax());
            long stagingBytes = (long) (WORKERS + 2) * (FrameReader.STAGING_BYTES + PayloadBuffers.ALIGNMENT_BYTES);
            long directBoundBytes = stats.bufferBytesMax() + PayloadBuffers.RETAINED_BYTES_MAX + stagingBytes
                    + (8L << 20); // the JDK's own temporary direct buffers for socket I/O of heap arrays
            assertThat(directPeakBytes.get() - directBaselineBytes).as("direct memory above baseline" + replay)
                    .isLessThanOrEqualTo(directBoundBytes);
            // Nothing hangs: every connection ends, every request is answered, every buffer byte comes back.
            NbdHostileClientTest.awaitTrue(() -> fixture.server.connectionsOpen() == 0, "every connection to end");
            assertThat(fixture.server.requestsInFlight()).isZero();
            assertThat(fixture.server.stats().bufferBytesInUse()).isZero();
            // Nothing was written: the pattern region is as it was, and the good client's region as it wrote it.
            try (NbdTestClient reader = fixture.client().go("default", true)) {
                for (int offset = 0; offset < pattern.length; offset += 1 << 20) {
                    assertThat(reader.read(offset, 1 << 20)).as("pattern at " + offset + replay)
                            .isEqualTo(Arrays.copyOfRange(pattern, offset, offset + (1 << 20)));
                }
                good.verifyAll(reader);
            }
        }
    }
}

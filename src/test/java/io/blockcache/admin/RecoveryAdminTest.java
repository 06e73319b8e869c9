package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.loop.Timer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The admin API answers /api/stats with recovery progress while a cache set is still being opened. */
class RecoveryAdminTest {
    private static final CacheSetOptions OPTIONS = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** One-sector clean extents in the clean-shutdown checkpoint: several replay slices' worth. */
    private static final int EXTENTS = 20_000;
    private static final int INSERTS_PER_TASK = 2_000;
    /** Bound on /api/stats polls while waiting for the held read. */
    private static final int POLLS_MAX = 2_000;

    private final RealLoop loop = new RealLoop("recovery-admin-test-loop");
    private final MemoryDevice cache = new MemoryDevice(loop, 64L << 20, 512);
    private final MemoryDevice backing = new MemoryDevice(loop, 65L << 20, 512);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private AdminEndpoint endpoint;

    @AfterEach
    void close() {
        if (endpoint != null) {
            endpoint.close();
        }
        loop.close();
    }

    @Test
    void statsAnswersWithProgressWhileTheReplayIsStillRunning() throws Exception {
        // Proves /api/stats answers during recovery: while a read is outstanding, and between two replay slices.
        buildCleanlyStoppedCache();
        HeldHeaderRead gate = new HeldHeaderRead(backing);
        RecoveryProgress progress = new RecoveryProgress();
        SignallingLoop signalling = new SignallingLoop(loop);
        endpoint = AdminEndpoint.bind(new InetSocketAddress("127.0.0.1", 0), new RecoveryAdmin(signalling, progress));
        CompletableFuture<Outcome<CacheSet>> opened = new CompletableFuture<>();
        loop.execute(() -> CacheSet.open(loop, cache, List.of(new BackingSpec("default", gate)), OPTIONS, progress,
                opened::complete));

        // 1. Recovery waits for the backing header (held): the API answers and says so.
        for (int poll = 0; poll < POLLS_MAX && gate.held.get() == null; poll++) {
            stats();
        }
        assertThat(gate.held.get()).as("the backing header read was issued").isNotNull();
        JsonNode waiting = stats();
        assertThat(waiting.path("recovery").path("phase").asText()).isEqualTo("checking_backings");
        HttpResponse<String> knobs = get("/api/knobs");
        assertThat(knobs.statusCode()).isEqualTo(503);
        assertThat(knobs.body()).contains("still being opened");
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).as("the dashboard, which shows the recovery's progress").isEqualTo(200);
        assertThat(page.body()).contains("id=\"recovery\"", "Opening the cache (recovery)");

        // 2. On the loop: let the read complete (the replay queues its first slice, which decodes the first
        //    checkpoint chunk); behind that slice, ask for stats and return only once that request's task is queued
        //    behind the second slice (which applies extents): it must be answered between two slices.
        CountDownLatch queued = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> between = new CompletableFuture<>();
        LoopCalls.<Boolean>await(loop, done -> {
            gate.release();
            loop.execute(() -> {
                signalling.armed.set(queued);
                http.sendAsync(request("/api/stats"), HttpResponse.BodyHandlers.ofString())
                        .whenComplete((response, error) -> {
                            if (error != null) {
                                between.completeExceptionally(error);
                            } else {
                                between.complete(response);
                            }
                        });
                try {
                    done.accept(queued.await(WAIT.toSeconds(), TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    done.accept(false);
                }
            });
        }, WAIT);
        JsonNode during = json.readTree(between.get(WAIT.toSeconds(), TimeUnit.SECONDS).body()).path("recovery");
        assertThat(during.path("phase").asText()).isEqualTo("checkpoint");
        assertThat(during.path("extentsTotal").asLong()).isEqualTo(EXTENTS);
        assertThat(during.path("extentsDone").asLong()).isPositive().isLessThan(EXTENTS);
        assertThat(during.path("slices").asLong()).isEqualTo(2);

        Outcome<CacheSet> outcome = opened.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(outcome.error()).isNull();
        JsonNode done = stats().path("recovery");
        assertThat(done.path("phase").asText()).isEqualTo("done");
        assertThat(done.path("extentsDone").asLong()).isEqualTo(EXTENTS);
    }

    private JsonNode stats() throws Exception {
        HttpResponse<String> response = get("/api/stats");
        assertThat(response.statusCode()).isEqualTo(200);
        return json.readTree(response.body());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(request(path), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.address().getPort() + path))
                .timeout(WAIT).GET().build();
    }

    /** Formats, fills with {@link #EXTENTS} clean one-sector extents, and stops cleanly (all in the checkpoint). */
    private void buildCleanlyStoppedCache() {
        List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
        this.<Outcome<Void>>onLoop(done -> CacheSet.format(loop, cache, backings, OPTIONS, new Prng(5),
                fraction -> { }, done)).orThrow();
        CacheSet set = this.<Outcome<CacheSet>>onLoop(done -> CacheSet.open(loop, cache, backings, OPTIONS, done))
                .orThrow();
        // Clean inserts are journaled (docs/FORMAT.md §7 rule 10): a few thousand per loop task, each batch made
        // durable before the next, as fills arriving over many loop turns are; 20,000 in one task outgrew the ring.
        for (int from = 0; from < EXTENTS; from += INSERTS_PER_TASK) {
            int first = from;
            IoResult durable = this.<IoResult>onLoop(done -> {
                CacheSpace space = set.space();
                WritePoint writePoint = space.cleanWritePoint();
                WritePoint.Reservation reservation = new WritePoint.Reservation();
                for (int i = first; i < Math.min(EXTENTS, first + INSERTS_PER_TASK); i++) {
                    writePoint.reserve(1, reservation);
                    int bucket = reservation.bucket();
                    set.volumes().get(0).index().insertPiece(2L * i, 1, bucket, reservation.offsetSectors(),
                            space.currentGeneration(bucket), false, i, 0, 1);
                    space.allocator().unpin(bucket);
                }
                set.volumes().get(0).flush(done::accept);
            });
            assertThat(durable).isEqualTo(IoResult.OK);
        }
        IoResult stopped = this.<IoResult>onLoop(done -> set.shutdown(done::accept));
        assertThat(stopped).isEqualTo(IoResult.OK);
    }

    private <T> T onLoop(Consumer<Consumer<T>> operation) {
        return LoopCalls.await(loop, operation, WAIT);
    }

    /** Holds the completion of the read of the backing header (byte 0) until {@link #release}, on the loop. */
    private static final class HeldHeaderRead extends ForwardingDevice {
        final AtomicReference<Runnable> held = new AtomicReference<>();

        HeldHeaderRead(BlockDevice inner) {
            super(inner);
        }

        @Override
        public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
            if (offsetBytes != 0) {
                super.read(offsetBytes, dst, callback);
                return;
            }
            super.read(offsetBytes, dst, result -> held.set(() -> callback.complete(result)));
        }

        void release() {
            held.get().run();
        }
    }

    /** The loop, telling {@link #armed} (if set) that a task was posted: how the test knows a request is queued. */
    private static final class SignallingLoop implements EventLoop {
        final AtomicReference<CountDownLatch> armed = new AtomicReference<>();
        private final EventLoop inner;

        SignallingLoop(EventLoop inner) {
            this.inner = inner;
        }

        @Override
        public long nowNs() {
            return inner.nowNs();
        }

        @Override
        public void execute(Runnable task) {
            inner.execute(task);
            CountDownLatch latch = armed.getAndSet(null);
            if (latch != null) {
                latch.countDown();
            }
        }

        @Override
        public Timer schedule(long delayNs, Runnable task) {
            return inner.schedule(delayNs, task);
        }

        @Override
        public boolean inLoop() {
            return inner.inLoop();
        }
    }
}

package io.blockcache.admin;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Test fixture: a formatted and opened cache set on memory devices and a real loop, with its admin server on
 * a free loopback port. Shared by the admin and CLI tests.
 */
public final class RunningCacheSet implements AutoCloseable {
    private static final long WAIT_SECONDS_MAX = 10;
    /** How often {@link #awaitOnLoop} looks: far below the writeback engine's 100 ms sample. */
    private static final long CHECK_PERIOD_NS = 5_000_000L;

    public final RealLoop loop = new RealLoop("admin-test-loop");
    public final MemoryDevice cacheDevice = new MemoryDevice(loop, 8L << 20, 512);
    public final MemoryDevice backingDevice = new MemoryDevice(loop, 17L << 20, 512);
    /** The backing as the admin API sees it: dressed as a remote (NBD) backing whose client state tests set. */
    final RemoteView remoteBacking = new RemoteView(backingDevice);
    public final List<BackingSpec> backings = List.of(new BackingSpec("default", remoteBacking));
    public final CacheSet set;
    public final AdminServer admin;
    /** The admin server's listening endpoint (its limits and counters). */
    public final AdminEndpoint endpoint;

    public RunningCacheSet() throws Exception {
        this(AdminGuard.OPEN);
    }

    /** As above, with the admin API behind {@code guard} (a bearer token). */
    public RunningCacheSet(AdminGuard guard) throws Exception {
        this(guard, AdminLimits.DEFAULTS);
    }

    /** As above, with every admin client bounded by {@code limits}. */
    public RunningCacheSet(AdminGuard guard, AdminLimits limits) throws Exception {
        // With the damage map (on the backing file), so that its counters are in /api/stats and /metrics.
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10).withDamageMap(true);
        Outcome<Void> formatted = this.<Outcome<Void>>onLoop(done ->
                CacheSet.format(loop, cacheDevice, backings, options, new Prng(1), fraction -> { }, done));
        formatted.orThrow();
        set = this.<Outcome<CacheSet>>onLoop(done -> CacheSet.open(loop, cacheDevice, backings, options, done))
                .orThrow();
        // Writeback would clean what the tests write before they look: pause it, so dirty bytes stay put.
        this.<Boolean>onLoop(done -> {
            set.knobs().find("writeback.default.running").set("false");
            // Request latency on a loaded test machine can pass the congestion thresholds; keep writes cached.
            set.knobs().find("volume.default.congested_read_threshold_us").set("0");
            set.knobs().find("volume.default.congested_write_threshold_us").set("0");
            done.accept(true);
        });
        admin = new AdminServer(new InetSocketAddress("127.0.0.1", 0), set, cacheDevice, backings);
        endpoint = AdminEndpoint.bind(new InetSocketAddress("127.0.0.1", 0), exchange -> { }, guard, limits);
        admin.start(endpoint);
    }

    /** The admin API's base address, e.g. {@code 127.0.0.1:41234}. */
    public String adminHostPort() {
        return "127.0.0.1:" + admin.address().getPort();
    }

    /** Starts {@code operation} on the loop and waits for the value it hands to its callback. */
    public <T> T onLoop(Consumer<Consumer<T>> operation) throws Exception {
        return LoopCalls.await(loop, operation, Duration.ofSeconds(WAIT_SECONDS_MAX));
    }

    /** Sets a live knob on the loop (e.g. {@code writeback.default.running} back to {@code true}). */
    public void setKnob(String name, String value) throws Exception {
        this.<Boolean>onLoop(done -> {
            set.knobs().find(name).set(value);
            done.accept(true);
        });
    }

    /**
     * Waits until {@code condition}, evaluated on the loop thread after each check period of loop time, holds;
     * fails after {@value #WAIT_SECONDS_MAX} s. The loop's own timer paces the checks: no sleeping thread.
     */
    public void awaitOnLoop(BooleanSupplier condition) throws Exception {
        this.<Boolean>onLoop(done -> check(condition, done));
    }

    private void check(BooleanSupplier condition, Consumer<Boolean> done) {
        if (condition.getAsBoolean()) {
            done.accept(true);
        } else {
            loop.schedule(CHECK_PERIOD_NS, () -> check(condition, done));
        }
    }

    /** {@code GET path} on the admin API; fails the test unless it answers 200. */
    public String get(String path) throws Exception {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(WAIT_SECONDS_MAX)).build()) {
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://" + adminHostPort() + path))
                    .timeout(Duration.ofSeconds(WAIT_SECONDS_MAX)).GET().build();
            java.net.http.HttpResponse<String> response = http.send(request,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new AssertionError("GET " + path + ": " + response.statusCode() + " " + response.body());
            }
            return response.body();
        }
    }

    /** Runs one I/O on the loop and returns its result. */
    public IoResult io(Consumer<IoCallback> operation) throws Exception {
        return this.<IoResult>onLoop(done -> operation.accept(done::accept));
    }

    /** Writes {@code bytes} of a pattern at {@code offsetBytes} of the default volume. */
    public IoResult write(long offsetBytes, int bytes) throws Exception {
        byte[] data = new byte[bytes];
        new Prng(offsetBytes).nextBytes(data);
        return io(done -> set.volume("default").write(offsetBytes, ByteBuffer.wrap(data), false, done));
    }

    /** Reads {@code bytes} at {@code offsetBytes} of the default volume. */
    public IoResult read(long offsetBytes, int bytes) throws Exception {
        return io(done -> set.volume("default").read(offsetBytes, ByteBuffer.allocate(bytes), done));
    }

    @Override
    public void close() {
        admin.close();
        loop.close();
    }
}

package io.blockcache.nbd;

import io.blockcache.device.MemoryDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A real loop, a formatted cache set on memory devices (two 16 MiB volumes by default, "default" and "second"),
 * and an NBD server on 127.0.0.1 with an ephemeral port. The first volume's backing device is gated (reads can be
 * held) and its cache device can inject faults. The server's operator log lines are kept in {@link #log}.
 */
final class NbdFixture implements AutoCloseable {
    static final long VOLUME_BYTES = 16L << 20;

    final RealLoop loop = new RealLoop("nbd-test-loop");
    final FaultyDevice cacheDevice;
    final GatedDevice backing;
    final List<BackingSpec> backings;
    final CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
    final CacheSet cacheSet;
    final NbdServer server;
    /** The server's warnings as {@code nbd: MESSAGE} lines. */
    final java.util.Queue<String> log = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Every event of the server, warnings and the connections' starts and ends. */
    final java.util.Queue<io.blockcache.log.LogEvent> events = new java.util.concurrent.ConcurrentLinkedQueue<>();

    NbdFixture() throws Exception {
        this(VOLUME_BYTES, NbdLimits.DEFAULTS, new PayloadBuffers());
    }

    /** Volumes of {@code volumeBytes}, a server with {@code limits} and the buffer pool {@code buffers}. */
    NbdFixture(long volumeBytes, NbdLimits limits, PayloadBuffers buffers) throws Exception {
        this(volumeBytes, limits, buffers, TlsSettings.OFF);
    }

    /** As above, with TLS as {@code tls} says. */
    NbdFixture(long volumeBytes, NbdLimits limits, PayloadBuffers buffers, TlsSettings tls) throws Exception {
        this(volumeBytes, limits, buffers, tls, Map.of(), "127.0.0.1");
    }

    /** Default volumes and limits, without TLS, with the exports' allow-lists {@code access}. */
    NbdFixture(Map<String, ExportAccess> access) throws Exception {
        this(VOLUME_BYTES, NbdLimits.DEFAULTS, new PayloadBuffers(), TlsSettings.OFF, access, "127.0.0.1");
    }

    /** As above, listening on {@code host} (e.g. {@code ::1}). */
    NbdFixture(Map<String, ExportAccess> access, String host) throws Exception {
        this(VOLUME_BYTES, NbdLimits.DEFAULTS, new PayloadBuffers(), TlsSettings.OFF, access, host);
    }

    /** The general form. */
    NbdFixture(long volumeBytes, NbdLimits limits, PayloadBuffers buffers, TlsSettings tls,
               Map<String, ExportAccess> access, String host) throws Exception {
        cacheDevice = new FaultyDevice(new MemoryDevice(loop, 32L << 20, 512), loop, FaultPlan.none(), new Prng(7));
        backing = new GatedDevice(new MemoryDevice(loop, volumeBytes + (1 << 20), 512), loop);
        MemoryDevice second = new MemoryDevice(loop, volumeBytes + (1 << 20), 512);
        backings = List.of(new BackingSpec("default", backing), new BackingSpec("second", second));
        Outcome<Void> formatted = onLoop(done -> CacheSet.format(loop, cacheDevice, backings, options, new Prng(1),
                fraction -> { }, done));
        formatted.orThrow();
        cacheSet = onLoop((Consumer<Outcome<CacheSet>> done) -> CacheSet.open(loop, cacheDevice, backings, options,
                done)).orThrow();
        // Protocol tests gate backing I/O and assert cache state: on a loaded test machine request latency alone
        // can pass bcache's congestion thresholds and send writes around the cache (into the gate), so that
        // bypass is off here.
        runOnLoop(() -> {
            for (String volume : List.of("default", "second")) {
                cacheSet.knobs().find("volume." + volume + ".congested_read_threshold_us").set("0");
                cacheSet.knobs().find("volume." + volume + ".congested_write_threshold_us").set("0");
            }
        });
        Map<String, Volume> exports = new LinkedHashMap<>();
        exports.put("default", cacheSet.volume("default"));
        exports.put("second", cacheSet.volume("second"));
        server = new NbdServer(new InetSocketAddress(host, 0), exports, loop, limits, tls, access, event -> {
            events.add(event);
            if (event.level() != io.blockcache.log.Level.INFO) {
                log.add("nbd: " + event.message());
            }
        },
                buffers);
        server.start();
    }

    /** The server's events of {@code name} so far, by their stable name (not their message). */
    java.util.List<io.blockcache.log.LogEvent> events(io.blockcache.log.EventName name) {
        return events.stream().filter(event -> event.name() == name).toList();
    }

    /** Runs {@code operation} on the loop and waits for the outcome it reports. */
    <T> T onLoop(Consumer<Consumer<T>> operation) throws Exception {
        return LoopCalls.await(loop, operation, Duration.ofSeconds(20));
    }

    /** Runs {@code task} on the loop and waits for it. */
    void runOnLoop(Runnable task) throws Exception {
        onLoop(done -> {
            task.run();
            done.accept(Boolean.TRUE);
        });
    }

    NbdTestClient client() throws IOException {
        return new NbdTestClient(server.address());
    }

    @Override
    public void close() throws Exception {
        server.close();
        loop.close();
    }
}

package io.blockcache.admin;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Test fixture: a formatted and opened cache set on memory devices and a real loop, with its admin server on
 * a free loopback port. Shared by the admin and CLI tests.
 */
public final class RunningCacheSet implements AutoCloseable {
    private static final long WAIT_SECONDS_MAX = 10;

    public final RealLoop loop = new RealLoop("admin-test-loop");
    public final MemoryDevice cacheDevice = new MemoryDevice(loop, 8L << 20, 512);
    public final MemoryDevice backingDevice = new MemoryDevice(loop, 17L << 20, 512);
    public final List<BackingSpec> backings = List.of(new BackingSpec("default", backingDevice));
    public final CacheSet set;
    public final AdminServer admin;

    public RunningCacheSet() throws Exception {
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
        Outcome<Void> formatted = this.<Outcome<Void>>onLoop(done ->
                CacheSet.format(loop, cacheDevice, backings, options, new Prng(1), fraction -> { }, done));
        formatted.orThrow();
        set = this.<Outcome<CacheSet>>onLoop(done -> CacheSet.open(loop, cacheDevice, backings, options, done))
                .orThrow();
        // Writeback would clean what the tests write before they look: pause it, so dirty bytes stay put.
        this.<Boolean>onLoop(done -> {
            set.knobs().find("writeback.default.running").set("false");
            done.accept(true);
        });
        admin = new AdminServer(new InetSocketAddress("127.0.0.1", 0), set, cacheDevice, backings);
        admin.start();
    }

    /** The admin API's base address, e.g. {@code 127.0.0.1:41234}. */
    public String adminHostPort() {
        return "127.0.0.1:" + admin.address().getPort();
    }

    /** Starts {@code operation} on the loop and waits for the value it hands to its callback. */
    public <T> T onLoop(Consumer<Consumer<T>> operation) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        loop.execute(() -> operation.accept(result::complete));
        return result.get(WAIT_SECONDS_MAX, TimeUnit.SECONDS);
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

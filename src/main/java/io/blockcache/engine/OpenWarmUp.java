package io.blockcache.engine;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs a cache's open once on a throwaway cache in memory, in the calling thread, so that a process's first real
 * open does not pay the JVM's one-time costs on its loop (the recovery goal: the loop is not blocked for more than
 * 10 ms at a time while it replays). In a fresh JVM the first open that replays spent 17–25 ms in single loop tasks
 * loading classes, bootstrapping record methods and linking lambdas (`CacheOpener.matchBackings`,
 * `CacheSetBuilder.prepare`, `CacheOpener.finishOpen`; docs/bench-history/recovery.md "Recovery on a quiet machine"),
 * costs of the code, not of the cache. Here they are paid off the loop: an 8 MiB cache in memory is formatted, written
 * and flushed, opened again as after a power cut (a journal tail to replay) and again after a clean stop, on a
 * simulated loop driven by this thread; and one virtual thread is started. Tens of milliseconds, once per process.
 *
 * <p>Call it before opening a cache that may need recovery ({@code serve} does, see {@code host.CacheHost});
 * calling it again costs the same and gains nothing. Thread rule: any thread but a loop's.
 */
public final class OpenWarmUp {
    private static final long CACHE_BYTES = 8L << 20;
    private static final long BACKING_BYTES = 17L << 20;
    private static final int BLOCK_BYTES = 4096;
    private static final int BLOCKS_WRITTEN = 16;

    private OpenWarmUp() {
    }

    /**
     * Formats, writes and reopens (after a crash, then after a clean stop) a small cache in memory.
     *
     * @throws IllegalStateException if any step fails: the engine could not open a cache it just made, a bug
     */
    public static void run() {
        SimLoop loop = new SimLoop();
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
        MemoryDevice cache = new MemoryDevice(loop, CACHE_BYTES, 512);
        List<BackingSpec> backings = List.of(new BackingSpec("warm-up", new MemoryDevice(loop, BACKING_BYTES, 512)));
        Outcome<Void> formatted = await(loop, done -> CacheSet.format(loop, cache, backings, options, new Prng(1),
                fraction -> { }, done));
        check(formatted.isOk(), "format", formatted.error());
        CacheSet set = open(loop, cache, backings, options, "first open");
        Volume volume = set.volumes().get(0);
        ByteBuffer block = ByteBuffer.allocate(BLOCK_BYTES);
        for (int i = 0; i < BLOCKS_WRITTEN; i++) {
            block.clear();
            block.putInt(0, i);
            long offsetBytes = (long) i * 3 * BLOCK_BYTES; // scattered: each block its own extent and record
            IoResult written = awaitIo(loop, done -> volume.write(offsetBytes, block, false, done));
            check(written.ok(), "write", written.message());
        }
        IoResult flushed = awaitIo(loop, volume::flush);
        check(flushed.ok(), "flush", flushed.message());
        // The first set is left as it is, as after a power cut: the next open replays its journal tail.
        CacheSet recovered = open(loop, cache, backings, options, "open after a crash");
        IoResult read = awaitIo(loop, done -> recovered.volumes().get(0).read(0, block.clear(), done));
        check(read.ok(), "read", read.message());
        IoResult stopped = awaitIo(loop, recovered::shutdown);
        check(stopped.ok(), "shutdown", stopped.message());
        open(loop, cache, backings, options, "open after a clean stop");
        startAVirtualThread();
    }

    /**
     * Starts one virtual thread: the first one a process starts loads the classes of the virtual-thread scheduler
     * and creates it, and a real open's first such start is on its loop ({@link io.blockcache.loop.RealLoop#offLoop},
     * the checkpoint decodes of {@link ChunkPrefetch}). Measured with {@code bench recovery} before this: the first
     * crash open's longest loop wait 9–18 ms, in the phase where that start happens, and 2–6 ms in the open after it.
     * Not joined: the start itself pays the cost, and the thread has nothing to do.
     */
    private static void startAVirtualThread() {
        Thread.ofVirtual().name("open-warm-up").start(() -> { });
    }

    private static CacheSet open(SimLoop loop, MemoryDevice cache, List<BackingSpec> backings,
                                 CacheSetOptions options, String step) {
        Outcome<CacheSet> opened = await(loop, done -> CacheSet.open(loop, cache, backings, options, done));
        check(opened.isOk(), step, opened.error());
        return opened.value();
    }

    private static <T> T await(SimLoop loop, Consumer<Consumer<T>> operation) {
        Object[] box = new Object[1];
        boolean[] answered = new boolean[1];
        operation.accept(value -> {
            box[0] = value;
            answered[0] = true;
        });
        check(loop.runUntil(() -> answered[0]), "a step", "the loop ran dry before it answered");
        @SuppressWarnings("unchecked")
        T value = (T) box[0];
        return value;
    }

    private static IoResult awaitIo(SimLoop loop, Consumer<IoCallback> operation) {
        return OpenWarmUp.<IoResult>await(loop, done -> operation.accept(done::accept));
    }

    private static void check(boolean ok, String step, Object error) {
        if (!ok) {
            throw new IllegalStateException("open warm-up: " + step + " failed: " + error);
        }
    }
}

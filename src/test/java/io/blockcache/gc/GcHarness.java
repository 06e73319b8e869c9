package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.SimDevice;
import io.blockcache.sim.SsdConfig;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * A cache set on simulated SSDs in virtual time, for GC tests: 128 KiB buckets, 64 buckets on the cache
 * (4 journal, 60 data), a 32 MiB volume. Survives crashes: {@link #crashAndReopen} keeps what the devices kept.
 */
final class GcHarness {
    static final int BLOCK_BYTES = 4096;
    static final long CACHE_BYTES = 9L << 20;
    static final long BACKING_BYTES = 33L << 20;

    SimLoop loop = new SimLoop();
    final SimDevice cache;
    /** What the cache set uses as its cache device: the SSD, or a test's wrapper around it. */
    final BlockDevice cacheView;
    final SimDevice backing;
    final CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10).withVerifyIndex(false);
    final List<BackingSpec> backings;
    CacheSet set;

    GcHarness() {
        this(device -> device);
    }

    GcHarness(java.util.function.UnaryOperator<BlockDevice> wrapCache) {
        cache = new SsdModel(loop, ssd(CACHE_BYTES));
        cacheView = wrapCache.apply(cache);
        backing = new SsdModel(loop, ssd(BACKING_BYTES));
        backings = List.of(new BackingSpec("default", backing));
        Outcome<?>[] box = new Outcome<?>[1];
        CacheSet.format(loop, cacheView, backings, options, new Prng(1), fraction -> { }, r -> box[0] = r);
        loop.runUntil(() -> box[0] != null);
        assertThat(box[0].error()).isNull();
        open();
    }

    private static SsdConfig ssd(long bytes) {
        SsdConfig d = SsdConfig.defaults();
        return new SsdConfig(bytes, d.readLatencyNs(), d.writeLatencyNs(), d.channelCount(), d.readBytesPerSecond(),
                d.writeBytesPerSecond(), 1L << 20, d.flushNs());
    }

    void open() {
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] box = new Outcome[1];
        CacheSet.open(loop, cacheView, backings, options, r -> box[0] = r);
        loop.runUntil(() -> box[0] != null);
        assertThat(box[0]).as("open finished").isNotNull();
        set = box[0].orThrow();
        // GC tests need a cache full of dirty data; the bypass decisions (tested in volume) would send writes
        // around it from 40 % dirty on, so they are off here.
        set.volumes().forEach(v -> v.setBypassSettings(io.blockcache.volume.BypassSettings.off()));
    }

    /** Power cut: pending events vanish, each device keeps what its crash image keeps; then recovery. */
    void crashAndReopen(Prng fate) {
        loop.discardPending();
        cache.crash(fate);
        backing.crash(fate);
        loop = new SimLoop();
        cache.powerOn(loop);
        backing.powerOn(loop);
        open();
    }

    Volume volume() {
        return set.volumes().get(0);
    }

    GarbageCollector gc() {
        return set.garbageCollector();
    }

    IoResult run(Consumer<IoCallback> op) {
        IoResult[] out = new IoResult[1];
        op.accept(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        assertThat(out[0]).as("operation finished").isNotNull();
        return out[0];
    }

    void write(long block, byte[] data, boolean fua) {
        assertThat(run(cb -> volume().write(block * BLOCK_BYTES, ByteBuffer.wrap(data), fua, cb)))
                .isEqualTo(IoResult.OK);
    }

    byte[] read(long block, int blocks) {
        ByteBuffer buffer = ByteBuffer.allocate(blocks * BLOCK_BYTES);
        assertThat(run(cb -> volume().read(block * BLOCK_BYTES, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    void flush() {
        assertThat(run(volume()::flush)).isEqualTo(IoResult.OK);
    }

    void trim(long block, int blocks) {
        assertThat(run(cb -> volume().discard(block * BLOCK_BYTES, (long) blocks * BLOCK_BYTES, cb)))
                .isEqualTo(IoResult.OK);
    }

    void gcNow() {
        assertThat(run(gc()::gc)).isEqualTo(IoResult.OK);
    }

    void checkpoint() {
        assertThat(run(set::checkpoint)).isEqualTo(IoResult.OK);
    }

    /**
     * A block's content for version {@code version}: every 512-byte sector starts with the tag
     * {@code version << 24 | block << 3 | sector} and is filled from it, so a read names what it found.
     */
    static byte[] block(long block, long version) {
        byte[] data = new byte[BLOCK_BYTES];
        for (int s = 0; s < BLOCK_BYTES / BlockDevice.SECTOR_BYTES; s++) {
            long tag = version << 24 | block << 3 | s;
            ByteBuffer sector = ByteBuffer.wrap(data, s * 512, 512);
            sector.putLong(tag);
            Prng fill = new Prng(tag);
            while (sector.hasRemaining()) {
                sector.put((byte) fill.nextInt(256));
            }
        }
        return data;
    }

    /** The version of sector {@code s} of {@code block} in {@code data}, 0 if all zero, -1 if garbage. */
    static long versionOf(byte[] data, int offset, long block, int s) {
        ByteBuffer sector = ByteBuffer.wrap(data, offset + s * 512, 512).slice();
        long tag = sector.getLong(0);
        if (tag == 0) {
            for (int i = 0; i < 512; i++) {
                if (sector.get(i) != 0) {
                    return -1;
                }
            }
            return 0;
        }
        long version = tag >>> 24;
        byte[] expected = block(block, version);
        return ByteBuffer.wrap(expected, s * 512, 512).equals(sector) ? version : -1;
    }
}

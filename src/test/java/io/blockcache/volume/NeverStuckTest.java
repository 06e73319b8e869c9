package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.SmallDevices;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class NeverStuckTest {
    private static final int BLOCK_BYTES = 64 << 10;
    private static final long CACHE_BYTES = 9L << 20;   // 128 KiB buckets: ~60 data buckets
    private static final long BACKING_BYTES = 65L << 20;

    private final SimLoop loop = new SimLoop();
    private CacheSet set;

    @Test
    void aCacheFilledWithDirtyDataCachesWritesAgainOnceWritebackAndGcHaveRun() {
        // Proves there is no state in which caching stops for good: a cache 100 % dirty (cutoffs raised, writeback
        // off) bypasses every new write, yet once writeback and GC run with the default cutoffs, writes are cached
        // again; every block reads back its newest data throughout.
        open();
        Volume volume = set.volumes().get(0);
        set.knobs().find("writeback.default.running").set("false");
        set.knobs().find("volume.default.cutoff_writeback_sync_percent").set("100"); // sync >= plain, always
        set.knobs().find("volume.default.cutoff_writeback_percent").set("100");
        set.knobs().find("volume.default.throttle_start_percent").set("100");
        int blocks = (int) (64L << 20) / BLOCK_BYTES / 2;
        long[] version = new long[blocks];
        long v = 0;
        int block = 0;
        while (set.space().allocator().allocationFailures() == 0) { // until the cache cannot take one more write
            version[block] = ++v;
            write(volume, block, v);
            block += 1;
        }
        loop.runFor(2_000_000L); // the occupancy gauge sweeps at most once per millisecond of loop time
        assertThat(volume.cacheInUsePercent()).as("the cache is full of dirty data").isEqualTo(100.0);

        set.knobs().find("volume.default.cutoff_writeback_percent").set("40");
        set.knobs().find("volume.default.cutoff_writeback_sync_percent").set("70");
        set.knobs().find("volume.default.throttle_start_percent").set("30");
        long bypassed = volume.stats().occupancyBypassedSectors();
        version[blocks - 1] = ++v;
        write(volume, blocks - 1, v);
        assertThat(volume.stats().occupancyBypassedSectors()).as("full: a new write goes around")
                .isEqualTo(bypassed + BLOCK_BYTES / 512);

        set.knobs().find("writeback.default.running").set("true");
        loop.runFor(30_000_000_000L); // writeback (idle: full speed) and GC run
        assertThat(volume.cacheInUsePercent()).as("writeback cleaned the cache").isLessThan(40);

        bypassed = volume.stats().occupancyBypassedSectors();
        // The buckets are clean now but not yet free: eviction (GC relief) starts at the first allocation that
        // finds no free bucket, and the evicted buckets are reusable once their generation bumps are durable in
        // the journal. So the first few writes may still go around the cache; within a bounded number (and time),
        // caching resumes, and from then on every write is cached.
        int target = 0;
        long cachedBefore = volume.stats().writeCachedSectors();
        while (volume.stats().writeCachedSectors() == cachedBefore && target < 2 * 16) {
            version[target] = ++v;
            write(volume, target, v); // spaced two blocks apart: never a sequential stream
            target += 2;
            loop.runFor(100_000_000L); // a writer at ~10 writes/s: lets the journal commit the evictions' bumps
        }
        assertThat(target / 2).as("writes until caching resumed").isLessThan(16);
        for (int i = 0; i < 8; i++) {
            long cached = volume.stats().writeCachedSectors();
            version[target] = ++v;
            write(volume, target, v);
            target += 2;
            assertThat(volume.stats().writeCachedSectors()).as("caching again, write %s", i)
                    .isEqualTo(cached + BLOCK_BYTES / 512);
        }
        assertThat(volume.stats().occupancyBypassedSectors()).isEqualTo(bypassed);
        for (int b = 0; b < blocks; b++) {
            if (version[b] != 0) {
                assertThat(read(volume, b)).as("block %s", b).isEqualTo(content(b, version[b]));
            }
        }
    }

    private void open() {
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
        List<BackingSpec> backings = List.of(new BackingSpec("default", SmallDevices.hdd(loop, BACKING_BYTES)));
        var cache = SmallDevices.ssd(loop, CACHE_BYTES);
        Outcome<?>[] formatted = new Outcome<?>[1];
        CacheSet.format(loop, cache, backings, options, new Prng(3), fraction -> { }, r -> formatted[0] = r);
        loop.runUntil(() -> formatted[0] != null);
        assertThat(formatted[0].error()).isNull();
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] opened = new Outcome[1];
        CacheSet.open(loop, cache, backings, options, r -> opened[0] = r);
        loop.runUntil(() -> opened[0] != null);
        set = opened[0].orThrow();
    }

    private void write(Volume volume, int block, long version) {
        assertThat(run(cb -> volume.write((long) block * BLOCK_BYTES * 2, ByteBuffer.wrap(content(block, version)),
                false, cb))).as("write of block %s", block).isEqualTo(IoResult.OK);
    }

    private byte[] read(Volume volume, int block) {
        ByteBuffer buffer = ByteBuffer.allocate(BLOCK_BYTES);
        assertThat(run(cb -> volume.read((long) block * BLOCK_BYTES * 2, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    private IoResult run(Consumer<IoCallback> op) {
        IoResult[] out = new IoResult[1];
        op.accept(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        return out[0];
    }

    private static byte[] content(int block, long version) {
        byte[] data = VolumeFixture.pattern((int) (version * 7919 + block), BLOCK_BYTES);
        data[0] = (byte) version;
        return data;
    }
}

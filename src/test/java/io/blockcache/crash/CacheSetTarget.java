package io.blockcache.crash;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.CrashTarget;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.SmallDevices;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import java.util.List;

/**
 * A whole cache set as a {@link CrashTarget}: a 32 MiB SSD cache (128 KiB buckets, volatile write cache) in
 * front of a 64 MiB disk with its volatile write cache on; the workload runs on the first volume. Start is
 * format + open; recovery is power-on + {@link CacheSet#open}, exactly what a restart after a power cut does.
 */
final class CacheSetTarget implements CrashTarget {
    static final long CACHE_BYTES = 32L << 20;
    static final long BACKING_BYTES = 64L << 20;
    static final int BUCKET_BYTES = 128 << 10;

    private final SimLoop loop;
    private final Prng ids;
    private final SsdModel cache;
    private final HddModel backing;
    private final CacheSetOptions options;
    private Volume volume;

    CacheSetTarget(SimLoop loop, Prng ids, CacheSetOptions options) {
        this.loop = loop;
        this.ids = ids;
        this.options = options;
        this.cache = SmallDevices.ssd(loop, CACHE_BYTES);
        this.backing = SmallDevices.hdd(loop, BACKING_BYTES);
    }

    /** The options every cache-set crash and model test uses: 128 KiB buckets, write-back. */
    static CacheSetOptions defaultOptions() {
        return CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES);
    }

    @Override
    public void start(IoCallback done) {
        CacheSet.format(loop, cache, backings(), options, ids, fraction -> { }, formatted -> {
            if (!formatted.isOk()) {
                done.complete(IoResult.error(IoStatus.IO_ERROR, "format failed: " + formatted.error()));
                return;
            }
            open(done);
        });
    }

    @Override
    public BlockDevice device() {
        return volume;
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback done) {
        volume.writeZeroes(offsetBytes, lengthBytes, fua, done);
    }

    @Override
    public boolean newestSubmissionWins() {
        return true; // the engine's promise for overlapping writes in flight together
    }

    @Override
    public void crash(Prng fate) {
        loop.discardPending();
        cache.crash(fate.split());
        backing.crash(fate.split());
        volume = null; // the old cache set is gone with the power; nothing of it may be used again
    }

    @Override
    public void recover(IoCallback done) {
        cache.powerOn(loop);
        backing.powerOn(loop);
        open(done);
    }

    private void open(IoCallback done) {
        CacheSet.open(loop, cache, backings(), options, opened -> {
            if (!opened.isOk()) {
                done.complete(IoResult.error(IoStatus.IO_ERROR, "open failed: " + opened.error()));
                return;
            }
            volume = opened.value().volumes().get(0);
            done.complete(IoResult.OK);
        });
    }

    private List<BackingSpec> backings() {
        return List.of(new BackingSpec("vol0", backing));
    }
}

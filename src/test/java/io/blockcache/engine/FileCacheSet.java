package io.blockcache.engine;

import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Test support: a cache file and one backing file on a {@link RealLoop}, with blocking format and open.
 * Used by the kill -9 writer process and by the tests that check files after it.
 *
 * <p>Thread rule: call from one foreign thread (a test or a main); engine calls go through {@link OnLoop}.
 */
final class FileCacheSet implements AutoCloseable {
    /** Cache file size: 128 buckets of 256 KiB, enough that the kill -9 run never fills it. */
    static final long CACHE_BYTES = 32L << 20;
    /** Backing file size: the 1 MiB header area plus the volume. */
    static final long BACKING_BYTES = 17L << 20;
    /** The volume the backing file serves (Geometry: everything after the 1 MiB header area). */
    static final long VOLUME_BYTES = 16L << 20;
    static final String EXPORT = "default";
    /** Small buckets so a few hundred KiB of writes span several buckets and journal entries. */
    static final CacheSetOptions OPTIONS = CacheSetOptions.defaults().withBucketSizeBytes(256 << 10);
    /** 512-byte logical blocks, like the MemoryDevice tests: the engine may write single sectors. */
    static final FileDeviceOptions DEVICE_OPTIONS = FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(512)
            .withQueueDepth(4);

    final RealLoop loop;
    final FileDevice cache;
    final FileDevice backing;

    private FileCacheSet(RealLoop loop, FileDevice cache, FileDevice backing) {
        this.loop = loop;
        this.cache = cache;
        this.backing = backing;
    }

    /** Creates both files (sparse, of the sizes above) and opens them as devices. */
    static FileCacheSet create(Path cachePath, Path backingPath) throws IOException {
        RealLoop loop = new RealLoop("file-cache-set");
        FileDevice cache = FileDevice.create(loop, cachePath, CACHE_BYTES, DEVICE_OPTIONS);
        FileDevice backing = FileDevice.create(loop, backingPath, BACKING_BYTES, DEVICE_OPTIONS);
        return new FileCacheSet(loop, cache, backing);
    }

    /** Opens existing files as devices of the files' current sizes. */
    static FileCacheSet openFiles(Path cachePath, Path backingPath) throws IOException {
        RealLoop loop = new RealLoop("file-cache-set");
        FileDevice cache = FileDevice.open(loop, cachePath, DEVICE_OPTIONS);
        FileDevice backing = FileDevice.open(loop, backingPath, DEVICE_OPTIONS);
        return new FileCacheSet(loop, cache, backing);
    }

    List<BackingSpec> backings() {
        return List.of(new BackingSpec(EXPORT, backing));
    }

    /** Formats the cache file and attaches the backing file; {@code idSeed} makes the UUIDs. */
    Outcome<Void> format(long idSeed) {
        return OnLoop.call(loop, done -> CacheSet.format(loop, cache, backings(), OPTIONS, new Prng(idSeed),
                fraction -> { }, done));
    }

    /** Opens (recovers) the cache set on the files. */
    Outcome<CacheSet> openSet() {
        return OnLoop.call(loop, done -> CacheSet.open(loop, cache, backings(), OPTIONS, done));
    }

    /** Closes both devices on the loop, then stops the loop. Does not shut a cache set down. */
    @Override
    public void close() {
        OnLoop.get(loop, () -> {
            cache.close();
            backing.close();
            return null;
        });
        loop.close();
    }
}

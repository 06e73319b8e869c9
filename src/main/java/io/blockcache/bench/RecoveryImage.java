package io.blockcache.bench;

import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds the cache {@code bench recovery} opens: sparse cache and backing files, formatted, then filled with N dirty
 * 4 KiB extents through the engine's own write path for metadata — each extent reserved at the dirty write point and
 * inserted with {@code VolumeIndex.insertPiece}, which journals it; the journal's pressure starts checkpoints as the
 * ring fills, exactly as under a write load — without writing the data (4 KiB × 10 M would be 40 GB of writes). The
 * sparse files read as zeroes, so every extent's CRC32C is that of zeroes and the cache is consistent
 * ({@code blockcache check --data} would pass). It ends with a power cut: no shutdown, so the image holds the last
 * checkpoint and a journal tail after it, which recovery must replay.
 *
 * <p>Thread rule: the benchmark's thread; engine work hops to the image's loop.
 */
final class RecoveryImage {
    /** Extents inserted per loop call, then committed: a slice of the fill that keeps the loop responsive. */
    private static final int FILL_BATCH = 50_000;
    /** Extent size: 8 sectors, the NBD client's usual 4 KiB. */
    static final int EXTENT_SECTORS = 8;
    /** The cache holds this share of its buckets in extents, as the GC bench does (no eviction, no moving GC). */
    private static final double FILL_FRACTION = 0.70;
    private static final long CALL_SECONDS_MAX = 600;

    final Path cacheFile;
    final Path backingFile;
    final CacheSetOptions options = CacheSetOptions.defaults();

    RecoveryImage(Path dir) {
        this.cacheFile = dir.resolve("blockcache-recovery-cache.img");
        this.backingFile = dir.resolve("blockcache-recovery-backing.img");
    }

    static FileDeviceOptions deviceOptions() {
        return FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(BlockDevice.SECTOR_BYTES);
    }

    /** Creates, formats and fills the image with {@code extents} dirty extents, then cuts the power. */
    void build(long extents, Consumer<String> log) throws IOException {
        delete();
        long dataBytes = extents * EXTENT_SECTORS * BlockDevice.SECTOR_BYTES;
        long cacheBytes = ((long) (dataBytes / FILL_FRACTION) + (256L << 20)) & ~((1L << 20) - 1);
        long backingBytes = dataBytes + (2L << 20);
        RealLoop loop = new RealLoop("recovery-image-loop");
        try {
            FileDevice cache = FileDevice.create(loop, cacheFile, cacheBytes, deviceOptions());
            FileDevice backing = FileDevice.create(loop, backingFile, backingBytes, deviceOptions());
            List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
            LoopAwait.<Outcome<Void>>call(loop, CALL_SECONDS_MAX, done -> CacheSet.format(loop, cache, backings,
                    options, new Prng(10), fraction -> { }, done)).orThrow();
            CacheSet set = LoopAwait.<Outcome<CacheSet>>call(loop, CALL_SECONDS_MAX,
                    done -> CacheSet.open(loop, cache, backings, options, done)).orThrow();
            LoopAwait.run(loop, CALL_SECONDS_MAX, () -> set.knobs().find("writeback.default.running").set("false"));
            long startNs = System.nanoTime();
            int crc = IndexPrefill.zeroCrc32c(EXTENT_SECTORS * BlockDevice.SECTOR_BYTES);
            for (long from = 0; from < extents; from += FILL_BATCH) {
                long to = Math.min(extents, from + FILL_BATCH);
                long first = from;
                LoopAwait.run(loop, CALL_SECONDS_MAX, () -> insertDirty(set, first, to, crc));
                LoopAwait.io(loop, CALL_SECONDS_MAX, "journal commit", set.journal()::commit);
                if (to % 1_000_000 == 0 || to == extents) {
                    log.accept(String.format("bench recovery: filled %,d of %,d extents (%.0f s, %d checkpoints)",
                            to, extents, (System.nanoTime() - startNs) / 1e9, LoopAwait.<Long>call(loop,
                                    CALL_SECONDS_MAX, done -> done.accept(set.checkpointsWritten()))));
                }
            }
            // Power cut: no shutdown checkpoint, no clean flag; only what the devices hold counts.
            LoopAwait.run(loop, CALL_SECONDS_MAX, () -> {
                cache.close();
                backing.close();
            });
        } finally {
            loop.close();
        }
    }

    private static void insertDirty(CacheSet set, long from, long to, int crc) {
        CacheSpace space = set.space();
        Volume volume = set.volumes().get(0);
        WritePoint writePoint = space.dirtyWritePoint();
        WritePoint.Reservation reservation = new WritePoint.Reservation();
        for (long extent = from; extent < to; extent++) {
            if (!writePoint.reserve(EXTENT_SECTORS, reservation) || reservation.lengthSectors() != EXTENT_SECTORS) {
                throw new IllegalStateException("bench recovery: no room for extent " + extent);
            }
            int bucket = reservation.bucket();
            volume.index().insertPiece(extent * EXTENT_SECTORS, EXTENT_SECTORS, bucket, reservation.offsetSectors(),
                    space.currentGeneration(bucket), true, crc, 0, EXTENT_SECTORS);
            space.allocator().unpin(bucket);
        }
    }

    void delete() throws IOException {
        Files.deleteIfExists(cacheFile);
        Files.deleteIfExists(backingFile);
    }
}

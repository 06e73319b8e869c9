package io.blockcache.volume;

import io.blockcache.cache.CacheSpace;
import java.util.Objects;

/**
 * Read admission of one volume: which read misses deserve a fill (docs/CACHING.md). Every front-end read counts
 * its 4 KiB blocks in a {@link FrequencySketch} (TinyLFU); a miss is filled only if one of its blocks has been
 * seen at least {@link AdmissionSettings#countMin} times lately, or while the cache still has plenty of free
 * buckets (then a fill displaces nothing). A block read once — a scan that slipped under the sequential cutoff,
 * a one-off lookup — then costs no cache write and evicts nothing; its second read fills it.
 *
 * <p>Memory: the sketch is sized once, for the cache's blocks up to {@link #SKETCH_KEYS_MAX}, so at most
 * ~8.5 MiB per volume ({@link #memoryBytes}); with a cache larger than 16 GiB the sketch is shared by more blocks
 * than it has columns and its counts grow less precise (each over-count admits a block early, never refuses one).
 *
 * <p>Thread rule: the loop thread (settings readable from any thread).
 */
public final class ReadAdmission {
    /** Columns of the sketch at most: 4 Mi (16 GiB of 4 KiB blocks), 8.5 MiB. Bounds memory per volume. */
    static final long SKETCH_KEYS_MAX = 1L << 22;
    /** Blocks of one read counted at most (a 1 MiB read): bounds the work per request. */
    static final int BLOCKS_COUNTED_MAX = 256;
    private static final int SECTORS_PER_BLOCK = 8;

    private final CacheSpace space;
    private final VolumeStats stats;
    private final FrequencySketch sketch;
    private final long sketchKeys;
    private volatile AdmissionSettings settings = AdmissionSettings.defaults();

    ReadAdmission(CacheSpace space, VolumeStats stats) {
        this.space = space;
        this.stats = stats;
        long cacheBlocks = (long) space.bucketCount() * space.blocksPerBucket();
        this.sketchKeys = Math.max(16, Math.min(SKETCH_KEYS_MAX, cacheBlocks));
        // TinyLFU's sample size W = 10 x the cache's entries: popularity is judged over ten cache-fulls of reads.
        this.sketch = new FrequencySketch(sketchKeys, 10 * sketchKeys);
    }

    /** The settings in force. */
    public AdmissionSettings settings() {
        return settings;
    }

    void setSettings(AdmissionSettings newSettings) {
        settings = Objects.requireNonNull(newSettings, "settings");
    }

    /** Bytes the sketch holds. */
    public long memoryBytes() {
        return sketch.memoryBytes();
    }

    /** Keys the sketch is sized for (its columns). */
    public long sketchKeys() {
        return sketchKeys;
    }

    /** Counts one front-end read of {@code [startSector, + lengthSectors)}, block by block (at most 256). */
    void recordRead(long startSector, long lengthSectors) {
        if (settings.countMin() <= 1) {
            return;
        }
        long first = startSector / SECTORS_PER_BLOCK;
        long end = Math.min((startSector + lengthSectors + SECTORS_PER_BLOCK - 1) / SECTORS_PER_BLOCK,
                first + BLOCKS_COUNTED_MAX);
        for (long block = first; block < end; block++) {
            sketch.increment(block);
        }
    }

    /** Whether the miss {@code [pieceStart, + lengthSectors)} is filled; counts the decision. */
    boolean admit(long pieceStart, int lengthSectors) {
        AdmissionSettings s = settings;
        if (s.countMin() <= 1
                || space.allocator().freeBuckets() * 100L > (long) s.freePercent() * space.bucketCount()) {
            stats.admittedSectors.addAndGet(lengthSectors);
            return true;
        }
        long first = pieceStart / SECTORS_PER_BLOCK;
        long end = Math.min((pieceStart + lengthSectors + SECTORS_PER_BLOCK - 1) / SECTORS_PER_BLOCK,
                first + BLOCKS_COUNTED_MAX);
        for (long block = first; block < end; block++) {
            if (sketch.estimate(block) >= s.countMin()) {
                stats.admittedSectors.addAndGet(lengthSectors);
                return true;
            }
        }
        stats.rejectedSectors.addAndGet(lengthSectors);
        return false;
    }
}

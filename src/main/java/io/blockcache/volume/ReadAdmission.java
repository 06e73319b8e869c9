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
 * ~8.5 MiB per volume ({@link #memoryBytes}); with a cache larger than 4 GiB the sketch is shared by more blocks
 * than it has columns and its counts grow less precise (each over-count admits a block early, never refuses one).
 *
 * <p>Thread rule: the loop thread (settings readable from any thread).
 */
public final class ReadAdmission {
    /** Keys the sketch is sized for at most: 1 Mi (4 GiB of 4 KiB blocks), 8.5 MiB. Bounds memory per volume. */
    static final long SKETCH_KEYS_MAX = 1L << 20;
    /** Blocks of one read counted at most (a 1 MiB read): bounds the work per request. */
    static final int BLOCKS_COUNTED_MAX = 256;
    private static final int SECTORS_PER_BLOCK = 8;

    private final CacheSpace space;
    private final VolumeStats stats;
    private final FrequencySketch sketch;
    private final long sketchKeys;
    /**
     * The blocks filled most recently, oldest at {@link #ringNext} once full: the log-structured cache evicts
     * roughly in fill order (buckets by age), so the oldest entry stands for the next victim, TinyLFU's comparison.
     * One entry per {@link #ringSampleEvery} fills, so the ring spans a cache-full of fills in bounded memory.
     */
    private final long[] recentFills;
    private final int ringSampleEvery;
    private int ringNext;
    private boolean ringFull;
    private long fillsSeen;
    private volatile AdmissionSettings settings = AdmissionSettings.defaults();

    ReadAdmission(CacheSpace space, VolumeStats stats) {
        this.space = space;
        this.stats = stats;
        long cacheBlocks = (long) space.bucketCount() * space.blocksPerBucket();
        this.sketchKeys = Math.max(16, Math.min(SKETCH_KEYS_MAX, cacheBlocks));
        // TinyLFU's sample size W = 10 x the cache's entries: popularity is judged over ten cache-fulls of reads.
        this.sketch = new FrequencySketch(sketchKeys, 10 * sketchKeys);
        this.recentFills = new long[(int) sketchKeys];
        this.ringSampleEvery = (int) Math.max(1, (cacheBlocks + sketchKeys - 1) / sketchKeys);
    }

    /** The settings in force. */
    public AdmissionSettings settings() {
        return settings;
    }

    void setSettings(AdmissionSettings newSettings) {
        settings = Objects.requireNonNull(newSettings, "settings");
    }

    /** Bytes the sketch and the ring of recent fills hold. */
    public long memoryBytes() {
        return sketch.memoryBytes() + 8L * recentFills.length;
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

    /**
     * Whether a clean read hit in {@code bucket} is rewritten into the newest bucket: the bucket was opened more
     * than {@link AdmissionSettings#promoteAgePercent} of the cache's buckets ago. Counts the promotion.
     */
    boolean promote(int bucket, int lengthSectors) {
        AdmissionSettings s = settings;
        if (s.promoteAgePercent() == 0
                || space.allocator().opensSince(bucket) * 100 < (long) s.promoteAgePercent() * space.bucketCount()) {
            return false;
        }
        stats.promotedSectors.addAndGet(lengthSectors);
        return true;
    }

    /**
     * Whether the miss {@code [pieceStart, + lengthSectors)} is filled; counts the decision. With admission on and
     * the cache short of free buckets, a miss fills only if its most frequent block was seen at least
     * {@link AdmissionSettings#countMin} times and more often than the oldest recent fill (the likely victim).
     */
    boolean admit(long pieceStart, int lengthSectors) {
        AdmissionSettings s = settings;
        long first = pieceStart / SECTORS_PER_BLOCK;
        if (s.countMin() <= 1
                || space.allocator().freeBuckets() * 100L > (long) s.freePercent() * space.bucketCount()) {
            stats.admittedSectors.addAndGet(lengthSectors);
            noteFill(first);
            return true;
        }
        long end = Math.min((pieceStart + lengthSectors + SECTORS_PER_BLOCK - 1) / SECTORS_PER_BLOCK,
                first + BLOCKS_COUNTED_MAX);
        int candidate = 0;
        for (long block = first; block < end; block++) {
            candidate = Math.max(candidate, sketch.estimate(block));
        }
        int victim = ringFull ? sketch.estimate(recentFills[ringNext]) : 0;
        if (candidate >= s.countMin() && candidate > victim) {
            stats.admittedSectors.addAndGet(lengthSectors);
            noteFill(first);
            return true;
        }
        stats.rejectedSectors.addAndGet(lengthSectors);
        return false;
    }

    /** Records a fill of {@code block} in the ring of recent fills (one in {@link #ringSampleEvery}). */
    void noteFill(long block) {
        if (fillsSeen++ % ringSampleEvery != 0) {
            return;
        }
        recentFills[ringNext] = block;
        if (++ringNext == recentFills.length) {
            ringNext = 0;
            ringFull = true;
        }
    }
}

package io.blockcache.cache;

import io.blockcache.loop.Checks;

/**
 * An open bucket that data is appended to sequentially, so the cache device sees large sequential writes
 * (docs/ARCHITECTURE.md §4.2). The cache keeps one for dirty writes and one for clean fills, so that clean data, which
 * may be evicted, does not share buckets with dirty data, which may not.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class WritePoint {
    private final String name;
    private final BucketAllocator allocator;
    private final int bucketSectors;
    private int bucket = -1;
    private int fillSectors;
    private long bucketsOpened;
    private SealListener sealListener;

    /** Space granted by {@link #reserve}: a bucket, an offset in it and a length, all in sectors. */
    public static final class Reservation {
        private int bucket;
        private int offsetSectors;
        private int lengthSectors;

        /** The bucket the space is in. */
        public int bucket() {
            return bucket;
        }

        /** The offset of the space inside the bucket, in sectors. */
        public int offsetSectors() {
            return offsetSectors;
        }

        /** The length granted, in sectors; at most what was asked. */
        public int lengthSectors() {
            return lengthSectors;
        }
    }

    /**
     * @param name for messages and statistics ("dirty", "clean")
     * @param bucketSectors bucket size in sectors
     */
    public WritePoint(String name, BucketAllocator allocator, int bucketSectors) {
        this.name = name;
        this.allocator = allocator;
        this.bucketSectors = bucketSectors;
    }

    /**
     * Reserves up to {@code maxLengthSectors} contiguous sectors in the open bucket, opening a new bucket when
     * the current one is full. A write larger than the space left gets what is left and asks again.
     *
     * <p>The bucket is pinned for the caller: until the data write completes and its extent is in the index,
     * the bucket holds no live sectors and must not be reused. The caller ends the pin with
     * {@link BucketAllocator#unpin(int)} once the extent is inserted (or the write failed).
     *
     * @return false if a new bucket was needed and none is free ({@code out} is then unchanged)
     */
    public boolean reserve(int maxLengthSectors, Reservation out) {
        Checks.check(maxLengthSectors > 0, "%s: reservation of %s sectors", name, maxLengthSectors);
        if (bucket < 0) {
            int next = allocator.allocate(BucketState.OPEN);
            if (next < 0) {
                return false;
            }
            bucket = next;
            fillSectors = 0;
            bucketsOpened++;
        }
        int granted = Math.min(maxLengthSectors, bucketSectors - fillSectors);
        out.bucket = bucket;
        out.offsetSectors = fillSectors;
        out.lengthSectors = granted;
        fillSectors += granted;
        allocator.pin(bucket);
        if (fillSectors == bucketSectors) {
            closeCurrent(); // full: seal now so that it can be reclaimed as soon as it empties
        }
        return true;
    }

    /** Seals the open bucket, if any (shutdown, or the bucket should no longer take data). */
    public void closeCurrent() {
        if (bucket >= 0) {
            if (sealListener != null) {
                sealListener.sealed(bucket, fillSectors);
            }
            allocator.seal(bucket);
            bucket = -1;
            fillSectors = 0;
        }
    }

    /** Tells {@code listener} (bucket, reserved sectors) about every bucket sealed from now on. */
    public void onSeal(SealListener listener) {
        this.sealListener = listener;
    }

    /** Told about a sealed bucket and how many of its sectors were reserved. */
    @FunctionalInterface
    public interface SealListener {
        /** {@code bucket} was sealed with {@code fillSectors} reserved. */
        void sealed(int bucket, int fillSectors);
    }

    /** Buckets this write point has opened since it was built (GC sizes its free margin by the dirty one's). */
    public long bucketsOpened() {
        return bucketsOpened;
    }

    /** The open bucket, or -1. */
    public int openBucket() {
        return bucket;
    }

    /** Sectors already used in the open bucket. */
    public int fillSectors() {
        return fillSectors;
    }
}

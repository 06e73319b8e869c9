package io.blockcache.cache;

import io.blockcache.index.ExtentListener;
import io.blockcache.index.GenerationSource;
import io.blockcache.journal.GenerationJournal;

/**
 * The space of one cache device as the index sees it: the bucket table, the allocator, and the two write
 * points (dirty writes and clean fills). As the index's listener it keeps every bucket's live and dirty
 * sector counts current and releases a sealed bucket the moment its last live sector goes; as the index's
 * {@link GenerationSource} it tells lookups which keys are stale.
 *
 * <p>Reports about stale keys (generation older than the bucket's) are ignored: the bucket's counts were
 * already zero when its generation was bumped.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class CacheSpace implements ExtentListener, GenerationSource {
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final WritePoint dirtyWritePoint;
    private final WritePoint cleanWritePoint;

    /** Creates the space over {@code table}; buckets in state FREE are allocatable. */
    public CacheSpace(BucketTable table, GenerationJournal journal) {
        this.table = table;
        this.allocator = new BucketAllocator(table, journal);
        this.dirtyWritePoint = new WritePoint("dirty", allocator, table.bucketSectors());
        this.cleanWritePoint = new WritePoint("clean", allocator, table.bucketSectors());
    }

    /** The bucket table. */
    public BucketTable table() {
        return table;
    }

    /** The allocator. */
    public BucketAllocator allocator() {
        return allocator;
    }

    /** Where dirty (write-back) data is appended. */
    public WritePoint dirtyWritePoint() {
        return dirtyWritePoint;
    }

    /** Where clean data (read-miss fills, write-through copies) is appended. */
    public WritePoint cleanWritePoint() {
        return cleanWritePoint;
    }

    @Override
    public int currentGeneration(int bucket) {
        return table.generation(bucket);
    }

    @Override
    public void onAdded(int bucket, int generation, int lengthSectors, boolean dirty) {
        if (generation == table.generation(bucket)) {
            table.addLive(bucket, lengthSectors, dirty);
        }
    }

    @Override
    public void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty) {
        if (generation == table.generation(bucket)) {
            table.addLive(bucket, -lengthSectors, dirty);
            allocator.releaseIfEmpty(bucket);
        }
    }

    @Override
    public void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow) {
        if (generation == table.generation(bucket)) {
            table.addDirty(bucket, dirtyNow ? lengthSectors : -lengthSectors);
        }
    }
}

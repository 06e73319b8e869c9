package io.blockcache.cache;

import io.blockcache.index.ExtentListener;
import io.blockcache.index.GenerationSource;
import io.blockcache.journal.GenerationJournal;
import io.blockcache.journal.MetadataSpace;

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
public final class CacheSpace implements ExtentListener, GenerationSource, MetadataSpace {
    private final CacheLayout layout;
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final WritePoint dirtyWritePoint;
    private final WritePoint cleanWritePoint;
    private boolean counting = true;

    /** Creates the space over {@code table}; buckets in state FREE are allocatable. */
    public CacheSpace(CacheLayout layout, BucketTable table, GenerationJournal journal) {
        this.layout = layout;
        this.table = table;
        this.allocator = new BucketAllocator(table, journal);
        this.dirtyWritePoint = new WritePoint("dirty", allocator, table.bucketSectors());
        this.cleanWritePoint = new WritePoint("clean", allocator, table.bucketSectors());
        this.cleanWritePoint.onSeal(allocator.cleanCoverage()::sealed);
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

    /**
     * Switches the incremental live/dirty counting off (while recovery replays, when generations still move)
     * or on; recovery recounts with {@link #recount} before switching it back on.
     */
    public void setCounting(boolean on) {
        counting = on;
    }

    /** Adds one extent found in a full walk of an index after replay; stale extents are ignored. */
    public void recount(int bucket, int generation, int lengthSectors, boolean dirty) {
        if (generation == table.generation(bucket)) {
            table.addLive(bucket, lengthSectors, dirty);
        }
    }

    @Override
    public int allocateMetadataBucket() {
        return allocator.allocate(BucketState.METADATA);
    }

    @Override
    public boolean releaseMetadataBucket(int bucket) {
        return allocator.releaseMetadata(bucket);
    }

    @Override
    public long bucketByteOffset(int bucket) {
        return layout.byteOffset(bucket, 0);
    }

    @Override
    public int bucketSizeBytes() {
        return layout.bucketSizeBytes();
    }

    @Override
    public int bucketCount() {
        return table.bucketCount();
    }

    @Override
    public int blocksPerBucket() {
        return allocator.blockChecksums().blocksPerBucket();
    }

    @Override
    public int nextBlockWithCrc(int fromBlock) {
        return allocator.blockChecksums().nextKnown(fromBlock);
    }

    @Override
    public void checkpointDurable() {
        allocator.releaseQuarantine(); // every checkpoint is begun after the open that held them back
        allocator.checkpointDurable();
    }

    @Override
    public int coveredSectors(int bucket) {
        return allocator.cleanCoverage().coveredSectors(bucket);
    }

    @Override
    public int blockCrcRun(int block, int[] crcs) {
        return allocator.blockChecksums().copyRun(block, crcs);
    }

    @Override
    public int generation(int bucket) {
        return table.generation(bucket);
    }

    /** The cache device layout. */
    public CacheLayout layout() {
        return layout;
    }

    @Override
    public void onAdded(int bucket, int generation, int lengthSectors, boolean dirty) {
        if (counting && generation == table.generation(bucket)) {
            table.addLive(bucket, lengthSectors, dirty);
            allocator.observer().onCountsChanged(bucket);
        }
    }

    @Override
    public void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty) {
        if (!dirty) {
            allocator.cleanCoverage().removedClean(bucket, generation); // before the bucket may be released below
        }
        if (counting && generation == table.generation(bucket)) {
            table.addLive(bucket, -lengthSectors, dirty);
            allocator.observer().onCountsChanged(bucket);
            allocator.releaseIfEmpty(bucket);
        }
    }

    @Override
    public void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow) {
        if (counting && generation == table.generation(bucket)) {
            table.addDirty(bucket, dirtyNow ? lengthSectors : -lengthSectors);
            allocator.observer().onCountsChanged(bucket);
        }
    }
}

package io.blockcache.journal;

/**
 * What the checkpoint writer needs of the cache's bucket space: buckets to write checkpoints into, a way to
 * give them back, where they are, every bucket's generation and the block CRCs (part of each checkpoint).
 *
 * <p>Thread rule: the cache's loop thread.
 */
public interface MetadataSpace {
    /**
     * Takes a free bucket for checkpoint data (from the reserve kept for it); -1 if none is free or metadata holds
     * its whole reserve already.
     */
    int allocateMetadataBucket();

    /**
     * Gives back a metadata bucket that no durable checkpoint needs any more. False if it may not be given back yet
     * (its generation may not advance): the caller still owns it and may write checkpoint data into it again.
     */
    boolean releaseMetadataBucket(int bucket);

    /** Device byte offset of the start of {@code bucket}. */
    long bucketByteOffset(int bucket);

    /** Bucket size in bytes. */
    int bucketSizeBytes();

    /** Number of buckets. */
    int bucketCount();

    /** Current generation of {@code bucket}. */
    int generation(int bucket);

    /** Blocks (4 KiB) per bucket in the block CRC table (docs/FORMAT.md §9); block {@code b} of bucket {@code k} is
     * {@code k * blocksPerBucket() + b}. */
    int blocksPerBucket();

    /** The first block at or after {@code fromBlock} (numbered across buckets) with a CRC, or -1 if none. */
    int nextBlockWithCrc(int fromBlock);

    /**
     * Copies the CRCs of the blocks from {@code block} on that have one, in a row and within its bucket, into
     * {@code crcs} (at most its length); returns how many.
     */
    int blockCrcRun(int block, int[] crcs);

    /** Sectors from the start of {@code bucket} whose clean data a backing flush covers (docs/FORMAT.md §7 rule 10). */
    int coveredSectors(int bucket);

    /** A checkpoint is durable: replay will start at or after its start from now on. */
    void checkpointDurable();
}

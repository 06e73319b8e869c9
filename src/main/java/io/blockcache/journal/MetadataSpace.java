package io.blockcache.journal;

/**
 * What the checkpoint writer needs of the cache's bucket space: buckets to write checkpoints into, a way to
 * give them back, where they are, and every bucket's generation (part of each checkpoint).
 *
 * <p>Thread rule: the cache's loop thread.
 */
public interface MetadataSpace {
    /** Takes a free bucket for checkpoint data (from the reserve kept for it); -1 if none is free. */
    int allocateMetadataBucket();

    /** Gives back a metadata bucket that no durable checkpoint needs any more. */
    void releaseMetadataBucket(int bucket);

    /** Device byte offset of the start of {@code bucket}. */
    long bucketByteOffset(int bucket);

    /** Bucket size in bytes. */
    int bucketSizeBytes();

    /** Number of buckets. */
    int bucketCount();

    /** Current generation of {@code bucket}. */
    int generation(int bucket);
}

package io.blockcache.cache;

/**
 * What a bucket of the cache device is used for right now.
 *
 * <p>Transitions: {@code FREE -> OPEN} (a write point takes it) {@code -> SEALED} (full, or the write point
 * moved on) {@code -> REUSE_PENDING} (no live data left; its generation was bumped and the bump is waiting to
 * become durable) {@code -> FREE}. Journal and metadata buckets are set aside and never carry extents.
 */
public enum BucketState {
    /** Holds nothing live; its current generation is durable; may be handed out. */
    FREE,
    /** Being appended to by a write point. */
    OPEN,
    /** Full or closed; holds extents until they are all overwritten, trimmed or evicted. */
    SEALED,
    /** Emptied; waiting for the journal entry with its generation bump to be durable before reuse. */
    REUSE_PENDING,
    /** Part of the journal ring. */
    JOURNAL,
    /** Holds a checkpoint. */
    METADATA
}

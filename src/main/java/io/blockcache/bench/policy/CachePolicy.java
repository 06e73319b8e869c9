package io.blockcache.bench.policy;

/**
 * A replacement policy over 4 KiB blocks with room for a fixed number of them. {@link #reference} is one access
 * (a read or a write of one block, both allocate): it says whether the block was cached, then updates the
 * policy's state, admitting the block if the policy wants it. Nothing else changes the cache.
 *
 * <p>Thread rule: one thread.
 */
public interface CachePolicy {
    /**
     * One access of {@code block} (a block number: byte offset / 4096).
     *
     * @return true if the block was cached when asked (a hit)
     */
    boolean reference(long block);

    /** The short name in tables and charts ("LRU", "S3-FIFO"). */
    String name();
}

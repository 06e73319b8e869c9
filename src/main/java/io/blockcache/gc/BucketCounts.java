package io.blockcache.gc;

/**
 * How the buckets of a cache are used at one moment.
 *
 * @param free allocatable now
 * @param reusePending emptied, waiting for their generation bump to be durable
 * @param open being filled by a write point
 * @param clean sealed, holding only clean data (evictable)
 * @param dirty sealed, holding some dirty data (never evicted)
 * @param emptyWaiting sealed and empty, waiting for the generation guard to allow their release
 * @param metadata holding checkpoints
 * @param journal the journal ring
 */
public record BucketCounts(int free, int reusePending, int open, int clean, int dirty, int emptyWaiting,
                           int metadata, int journal) {
}

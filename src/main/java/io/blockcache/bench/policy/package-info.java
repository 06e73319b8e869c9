/**
 * Classic cache replacement policies at 4 KiB-block granularity, for {@code bench hitratio}: each a small class
 * behind {@link io.blockcache.bench.policy.CachePolicy}, fed the same stream of block references as the engine and
 * counting nothing itself (the caller counts hits). They model a cache of a fixed number of blocks with no
 * metadata cost and no bucket granularity: the yardstick the engine is measured against, not part of it. The
 * {@link io.blockcache.bench.policy.LogPolicy} ones add the engine's bucket granularity (a log of 128 KiB buckets
 * evicted whole, blocks worth keeping rewritten at the head) and nothing else, to tell the cost of the granularity
 * from the cost of the engine's policy and free-space margins.
 *
 * <p>Thread rule: one thread per policy object (nothing is shared).
 */
package io.blockcache.bench.policy;

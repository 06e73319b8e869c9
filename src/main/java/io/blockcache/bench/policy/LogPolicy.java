package io.blockcache.bench.policy;

/** A {@link CachePolicy} over a log of buckets, which pays a cache write for each block it keeps by rewriting it. */
public interface LogPolicy extends CachePolicy {
    /** Blocks rewritten so far to keep them (reinsertions and moves between logs). */
    long rewrittenBlocks();
}

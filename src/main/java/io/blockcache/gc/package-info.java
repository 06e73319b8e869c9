/**
 * Garbage collection of one cache set (docs/GC.md): the sliced mark over every volume's index, the
 * generation-wrap guard, eviction of clean buckets by priority, moving GC out of sparse buckets, pacing after bcache's
 * GC-latency patch (linux-bcache, 2025), triggers and statistics. {@link io.blockcache.gc.GarbageCollector} is the
 * entry point; docs/GC.md explains the whole and docs/ARCHITECTURE.md §1.1 cites the patch.
 *
 * <p>Thread rule: everything here is owned by the cache's loop thread.
 */
package io.blockcache.gc;

/**
 * Garbage collection of one cache set (DESIGN.md §7, issue 6): the sliced mark over every volume's index,
 * the generation-wrap guard, eviction of clean buckets by priority, moving GC out of sparse buckets, pacing
 * after seed 002, triggers and statistics. {@link io.blockcache.gc.GarbageCollector} is the entry point;
 * docs/GC.md explains the whole.
 *
 * <p>Thread rule: everything here is owned by the cache's loop thread.
 */
package io.blockcache.gc;

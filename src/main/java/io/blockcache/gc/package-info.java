/**
 * Garbage collection: incremental mark in slices, bucket reclaim and eviction of clean data, moving
 * GC, and GC statistics.
 *
 * <p>Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.gc;

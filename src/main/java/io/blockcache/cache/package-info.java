/**
 * One cache device: buckets and their generations, the allocator and open buckets (write points). The
 * composition root of a cache set, and recovery, are in {@code engine}.
 *
 * <p>Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.cache;

/**
 * One cache device: buckets and their generations, the allocator and open buckets (write points),
 * recovery at start-up; the composition root of one cache set.
 *
 * <p>Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.cache;

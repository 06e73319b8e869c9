package io.blockcache.cache;

/**
 * Told about bucket events that garbage collection needs (recency, mark consistency, triggers). Every method
 * only records or schedules: it runs inside allocator, index or front-end calls and must not start work there.
 *
 * <p>Thread rule: called on the cache's loop thread.
 */
public interface BucketObserver {
    /** Observes nothing. */
    BucketObserver NONE = new BucketObserver() { };

    /** {@code bucket} was handed out to a write point (it will be filled with a bucket's worth of data). */
    default void onAllocated(int bucket) {
    }

    /** A front-end read was served from {@code bucket}. */
    default void onReadHit(int bucket) {
    }

    /** The incremental live or dirty count of {@code bucket} changed, or its keys were made stale. */
    default void onCountsChanged(int bucket) {
    }

    /** A data bucket was asked for and none was free: the write or fill goes around the cache. */
    default void onAllocationFailed() {
    }

    /** An empty bucket could not be released because its generation may not be bumped yet (see BumpGuard). */
    default void onReleaseRefused(int bucket) {
    }
}

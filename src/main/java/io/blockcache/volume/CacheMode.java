package io.blockcache.volume;

/**
 * How a volume uses the cache for writes (docs/ARCHITECTURE.md §4.2). Switchable live; dirty data already in the cache
 * stays valid and is still read and written back in every mode.
 */
public enum CacheMode {
    /** Writes go to the cache as dirty data; writeback copies them to the backing device later. */
    WRITEBACK,
    /** Writes go to the backing device and a clean copy to the cache; acknowledged when both are done. */
    WRITETHROUGH,
    /** Writes go to the backing device only (invalidating cached copies); read misses still fill the cache. */
    WRITEAROUND,
    /** The cache is not filled at all: writes go around it, misses are not filled. */
    NONE
}

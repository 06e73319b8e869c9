package io.blockcache.cache;

/**
 * Decides whether a bucket's generation may be bumped now. Generations are 16 bits and only compared for
 * equality, so a bucket whose generation laps the generation of a key still stored (in memory, in the newest
 * checkpoint or in the journal after it) would make that stale key valid again. Garbage collection bounds the
 * distance (see {@code io.blockcache.gc.GenerationGuard}); the default allows every bump.
 *
 * <p>Thread rule: called on the cache's loop thread.
 */
@FunctionalInterface
public interface BumpGuard {
    /** Allows every bump (components built without garbage collection, unit tests). */
    BumpGuard ALLOW_ALL = bucket -> true;

    /** True if {@code bucket}'s generation may advance by one now. */
    boolean mayBump(int bucket);
}

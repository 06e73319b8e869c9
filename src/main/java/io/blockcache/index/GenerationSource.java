package io.blockcache.index;

/**
 * The current generation of each bucket, owned by the cache's bucket table. A key whose generation
 * differs from the bucket's current one is stale (the bucket was invalidated) and reads as a hole.
 *
 * <p>Called on the owner thread during lookups; must be cheap and must not modify the index.
 */
@FunctionalInterface
public interface GenerationSource {
    /** Current generation (0..65535) of {@code bucket}. */
    int currentGeneration(int bucket);
}

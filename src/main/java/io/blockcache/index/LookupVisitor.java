package io.blockcache.index;

/**
 * Receives the pieces of a looked-up range in ascending order: each sector of the range is reported
 * exactly once, either as part of a cached piece or of a hole (not cached, or cached under a stale
 * generation). Adjacent holes are merged. Called on the owner thread; must not modify the index.
 */
public interface LookupVisitor extends ExtentVisitor {
    /** Backing sectors {@code [startSector, startSector + lengthSectors)} are not in the cache. */
    void hole(long startSector, int lengthSectors);
}

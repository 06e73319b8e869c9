package io.blockcache.index;

/**
 * The index's sector counts and its listener, kept in step: every extent (or part of one) that enters the
 * index, leaves it, is cleaned or is moved passes through here, so the counters and the per-bucket reports
 * can never disagree.
 *
 * <p>Thread rule: the index's owner thread.
 */
final class SectorTally {
    private final ExtentListener listener;
    private long cachedSectors;
    private long dirtySectors;

    SectorTally(ExtentListener listener) {
        this.listener = listener;
    }

    /** Sectors mapped by stored extents, stale ones included. */
    long cachedSectors() {
        return cachedSectors;
    }

    /** Sectors mapped by dirty extents, stale ones included. */
    long dirtySectors() {
        return dirtySectors;
    }

    /** Accounts for {@code lengthSectors} sectors at {@code location} entering the index. */
    void added(long location, int lengthSectors) {
        boolean dirty = ExtentLocation.dirty(location);
        cachedSectors += lengthSectors;
        if (dirty) {
            dirtySectors += lengthSectors;
        }
        listener.onAdded(ExtentLocation.bucket(location), ExtentLocation.generation(location), lengthSectors, dirty);
    }

    /** Accounts for {@code lengthSectors} sectors at {@code location} leaving the index; returns the length. */
    int left(long location, int lengthSectors) {
        boolean dirty = ExtentLocation.dirty(location);
        cachedSectors -= lengthSectors;
        if (dirty) {
            dirtySectors -= lengthSectors;
        }
        listener.onRemoved(ExtentLocation.bucket(location), ExtentLocation.generation(location), lengthSectors, dirty);
        return lengthSectors;
    }

    /** Accounts for {@code lengthSectors} dirty sectors at {@code location} becoming clean. */
    void cleaned(long location, int lengthSectors) {
        dirtySectors -= lengthSectors;
        listener.onDirtyChanged(ExtentLocation.bucket(location), ExtentLocation.generation(location), lengthSectors,
                false);
    }

    /** Reports {@code lengthSectors} sectors moving between buckets; the counts do not change. */
    void moved(long oldLocation, long newLocation, int lengthSectors, boolean dirty) {
        listener.onRemoved(ExtentLocation.bucket(oldLocation), ExtentLocation.generation(oldLocation), lengthSectors,
                dirty);
        listener.onAdded(ExtentLocation.bucket(newLocation), ExtentLocation.generation(newLocation), lengthSectors,
                dirty);
    }
}

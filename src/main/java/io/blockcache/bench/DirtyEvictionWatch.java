package io.blockcache.bench;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketTable;

/**
 * Counts evictions of buckets that held dirty sectors, observed from outside the engine: called after every
 * simulated event, it remembers which buckets held dirty sectors; when an event evicted buckets (the
 * allocator's eviction count moved), every bucket whose generation moved in that event and that held dirty
 * sectors before it is counted. Conservative: a bucket emptied by an overwrite and released in the same event
 * as an eviction would be counted too, so 0 is a strong result.
 *
 * <p>Thread rule: the simulation driver's thread, between events. Cost: O(buckets) per event.
 */
final class DirtyEvictionWatch {
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final int[] generations;
    private final boolean[] dirty;
    private long evictionsSeen;
    private long dirtyEvictions;

    DirtyEvictionWatch(BucketTable table, BucketAllocator allocator) {
        this.table = table;
        this.allocator = allocator;
        this.generations = new int[table.bucketCount()];
        this.dirty = new boolean[table.bucketCount()];
        this.evictionsSeen = allocator.bucketsEvicted();
        remember();
    }

    /** Call after each event. */
    void afterEvent() {
        long evictions = allocator.bucketsEvicted();
        if (evictions != evictionsSeen) {
            evictionsSeen = evictions;
            for (int b = 0; b < generations.length; b++) {
                if (dirty[b] && table.generation(b) != generations[b]) {
                    dirtyEvictions++;
                }
            }
        }
        remember();
    }

    private void remember() {
        for (int b = 0; b < generations.length; b++) {
            generations[b] = table.generation(b);
            dirty[b] = table.dirtySectors(b) > 0;
        }
    }

    /** Buckets evicted while they held dirty sectors (must stay 0). */
    long dirtyEvictions() {
        return dirtyEvictions;
    }

    /** Evictions seen in all. */
    long evictions() {
        return evictionsSeen;
    }
}

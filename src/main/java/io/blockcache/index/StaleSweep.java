package io.blockcache.index;

import static io.blockcache.loop.Checks.check;

/**
 * GC mark helper behind {@link ExtentIndex#dropStaleInNodes}: removes the stale keys (generation no longer
 * current) among the extents of a slice of whole leaves, reporting each removal with the stale generation.
 *
 * <p>Thread rule: the index's owner thread.
 */
final class StaleSweep {
    private final ExtentTree tree;
    private final SectorTally tally;

    StaleSweep(ExtentTree tree, SectorTally tally) {
        this.tree = tree;
        this.tally = tally;
    }

    /**
     * Drops the stale keys of {@code nodes} leaves from {@code fromSector} (the slice
     * {@link ExtentIndex#forEachInNodes} would visit).
     *
     * @return the cursor for the next slice, or {@link ExtentIndex#CURSOR_END}
     */
    long sweep(long fromSector, int nodes, GenerationSource generations) {
        if (!tree.seekCeiling(fromSector)) {
            return ExtentIndex.CURSOR_END;
        }
        // Collect first, delete after: deletions rebalance leaves and would move the walk under our feet.
        long[] staleStarts = new long[Math.min(nodes, tree.leafCount) * tree.leafCapacity];
        int stale = 0;
        LeafNode leaf = tree.cursorLeaf;
        int i = tree.cursorIndex;
        for (int node = 0; node < nodes && leaf != null; node++) {
            for (; i < leaf.count; i++) {
                long location = leaf.location[i];
                if (generations.currentGeneration(ExtentLocation.bucket(location))
                        != ExtentLocation.generation(location)) {
                    staleStarts[stale++] = leaf.start(i);
                }
            }
            leaf = leaf.next;
            i = 0;
        }
        long cursor = leaf == null ? ExtentIndex.CURSOR_END : leaf.start(0);
        for (int k = 0; k < stale; k++) {
            tree.seekFloor(staleStarts[k]);
            LeafNode at = tree.cursorLeaf;
            int j = tree.cursorIndex;
            check(at != null && at.start(j) == staleStarts[k], "stale extent at %d vanished", staleStarts[k]);
            long location = at.location[j];
            int length = at.length(j);
            tree.delete(staleStarts[k]);
            tally.left(location, length);
        }
        return cursor;
    }
}

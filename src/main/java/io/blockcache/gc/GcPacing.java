package io.blockcache.gc;

/**
 * How many index nodes one mark slice handles (seed 002, bcache's {@code btree_gc_min_nodes}): at least
 * {@code nodesPerSliceMin}; when the average interval between GCs is known, enough that the whole mark,
 * sleeping between slices, finishes within half of that interval. Pure function.
 *
 * <p>"Node" here is a leaf of the extent index (at most 128 extents), our equivalent of a bcache btree node.
 */
final class GcPacing {
    private GcPacing() {
    }

    /**
     * @param totalNodes leaves in all indexes now
     * @param intervalNsAverage measured average interval between GC starts, 0 if not known yet
     * @param sliceSleepNs the sleep between slices
     * @param nodesPerSliceMin the floor of the slice size
     */
    static int nodesPerSlice(long totalNodes, long intervalNsAverage, long sliceSleepNs, int nodesPerSliceMin) {
        if (intervalNsAverage <= 0 || sliceSleepNs <= 0) {
            return nodesPerSliceMin;
        }
        long slicesAllowed = (intervalNsAverage / 2) / sliceSleepNs;
        if (slicesAllowed <= 0) {
            return (int) Math.max(nodesPerSliceMin, Math.min(Integer.MAX_VALUE, totalNodes));
        }
        long perSlice = (totalNodes + slicesAllowed - 1) / slicesAllowed;
        return (int) Math.max(nodesPerSliceMin, Math.min(Integer.MAX_VALUE, perSlice));
    }
}

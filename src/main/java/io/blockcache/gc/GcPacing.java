package io.blockcache.gc;

import static io.blockcache.loop.Checks.require;
import io.blockcache.loop.Checks;

/**
 * The pacing rules of the sliced mark as pure functions (docs/GC.md "Pacing"); {@link MarkPacer} feeds them
 * its measurements. All times in nanoseconds.
 *
 * <p>"Node" here is a leaf of the extent index (at most 128 extents), our equivalent of a bcache btree node.
 */
final class GcPacing {
    /** A slice at most doubles the one before: one fast sample (a warm cache, a short leaf) cannot make a long one. */
    static final int SLICE_GROWTH_FACTOR_MAX = 2;
    /**
     * Behind its duration budget, a mark's slices may take this many times {@code sliceCostNsTarget}: each yield
     * costs the front end's queued work (measured: ~1.3 ms of loop time per yield on the loaded 2-core bench
     * machine), so fewer, longer slices finish sooner; 2 x 0.5 ms is still half of the GC's 2 ms front-end latency
     * target.
     */
    static final int BEHIND_BUDGET_COST_FACTOR = 2;
    /** Returned by {@link #durationBudgetNs} and {@link #slackNs} when no bound is known. */
    static final long UNBOUNDED_NS = Long.MAX_VALUE;

    private GcPacing() {
    }

    /**
     * The slice size of bcache's GC-latency patch, for when the cost of a node is not measurable (simulated time): at
     * least {@code nodesPerSliceMin}; when the average interval between GCs is known, enough that the whole mark,
     * sleeping {@code sliceSleepNs} between slices, finishes within half of that interval.
     *
     * @param totalNodes leaves in all indexes now
     * @param intervalNsAverage measured average interval between GC starts, 0 if not known yet
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

    /**
     * The slice size once a node's cost is measured: as many nodes as fit in {@code sliceCostNsTarget}, at least
     * {@code nodesPerSliceMin} (bcache's GC-latency patch), at most {@link #SLICE_GROWTH_FACTOR_MAX} times the
     * previous slice.
     *
     * @param costNsPerNode measured average cost of one node, {@code > 0}
     * @param previousNodes the size of the slice before
     */
    static int nodesForCost(double costNsPerNode, long sliceCostNsTarget, int previousNodes, int nodesPerSliceMin) {
        Checks.require(costNsPerNode > 0, "nodesForCost: cost per node must be positive: %s", costNsPerNode);
        double byCost = Math.floor(sliceCostNsTarget / costNsPerNode);
        double grown = Math.min(byCost, (double) SLICE_GROWTH_FACTOR_MAX * Math.max(1, previousNodes));
        return (int) Math.min(Integer.MAX_VALUE, Math.max(nodesPerSliceMin, grown));
    }

    /**
     * How long a whole sliced mark may take: {@code durationPercentMax} % of the unsliced estimate (the GC
     * goal: 130 %), or half the average interval between GCs (bcache's GC-latency patch), whichever is tighter.
     *
     * @param unslicedEstimateNs the mark's measured plus estimated remaining work, or -1 if not measurable
     * @param intervalNsAverage average interval between GC starts, 0 if not known yet
     * @return the budget, or {@link #UNBOUNDED_NS} when neither is known
     */
    static long durationBudgetNs(long unslicedEstimateNs, int durationPercentMax, long intervalNsAverage) {
        long budget = UNBOUNDED_NS;
        if (unslicedEstimateNs >= 0) {
            // Split so that the product cannot overflow for any estimate.
            budget = unslicedEstimateNs / 100 * durationPercentMax
                    + unslicedEstimateNs % 100 * durationPercentMax / 100;
        }
        if (intervalNsAverage > 0) {
            budget = Math.min(budget, intervalNsAverage / 2);
        }
        return budget;
    }

    /**
     * Time the rest of the mark may still spend not marking: the budget minus what was spent and the work left.
     *
     * @param spentNs time since the mark started (at least its measured work plus its sleeps)
     * @param remainingWorkNs estimated cost of the nodes not yet marked (0 if not measurable)
     * @return the slack (may be negative: behind budget), or {@link #UNBOUNDED_NS}
     */
    static long slackNs(long budgetNs, long spentNs, long remainingWorkNs) {
        return budgetNs == UNBOUNDED_NS ? UNBOUNDED_NS : budgetNs - spentNs - remainingWorkNs;
    }

    /**
     * The pause before the next slice: 0 means yield to the loop at once (queued front-end work still runs
     * first). Sleep only while front-end I/O is in flight (bcache's GC-latency patch) and no allocation waits for a
     * bucket (a sleep would hold up the space it waits for); sleep at most {@code sliceSleepNs}, and at most an even
     * share of the slack over the slices left, so the sleeps end when the duration budget does.
     *
     * @param slackNs from {@link #slackNs}
     * @param slicesLeft slices the mark still needs, {@code >= 1}
     */
    static long pauseNs(boolean frontEndBusy, boolean allocationsWaiting, long sliceSleepNs, long slackNs,
                        long slicesLeft) {
        Checks.require(slicesLeft >= 1, "pauseNs: slicesLeft must be at least 1: %s", slicesLeft);
        if (!frontEndBusy || allocationsWaiting || sliceSleepNs <= 0 || slackNs <= 0) {
            return 0;
        }
        if (slackNs == UNBOUNDED_NS) {
            return sliceSleepNs;
        }
        return Math.min(sliceSleepNs, slackNs / slicesLeft);
    }
}

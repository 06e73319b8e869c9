package io.blockcache.gc;

import static io.blockcache.loop.Checks.check;

import io.blockcache.loop.Clock;

/**
 * Paces one sliced mark at a time (docs/GC.md "Pacing"): measures each slice's cost with a {@link Clock},
 * sizes the next slice from it, and says how long to pause between slices within the duration budget. The
 * rules themselves are the pure functions of {@link GcPacing}.
 *
 * <p><b>Why a clock and not node counts alone:</b> what the front end feels is how long a slice holds the loop,
 * and a node's cost differs by machine, load and index shape by an order of magnitude; a node count tuned on
 * one is a spike on another. The cost clock is the loop's own (in real time {@code RealLoop.nowNs}); a
 * simulated loop's time does not move while a task runs, so every slice measures 0 there: the cost is then
 * unknown and only the rules of bcache's GC-latency patch apply (node counts, the half-interval budget).
 *
 * <p>Behind its budget (no slack left), a mark's slices may grow to
 * {@link GcPacing#BEHIND_BUDGET_COST_FACTOR} times the target: every yield lets the front end's queued work run
 * first, so fewer yields finish sooner.
 *
 * <p>The cost per node is an EWMA (weight 1/{@link GcStats#EWMA_WEIGHT}) kept across runs, so a run starts
 * with the last run's estimate. Thread rule: the cache's loop thread.
 */
final class MarkPacer {
    private Clock costClock;
    /** Average measured cost of one node, ns; 0 while unknown. */
    private double costNsPerNode;
    private GcConfig config;
    private long runStartNs;
    private long totalNodes;
    private long intervalNsAverage;
    private long nodesDone;
    private long workNs;
    private long sleptNs;
    private int sliceNodes;
    private long sliceStartNs;
    /** True once the last pause found no slack: the mark is behind its budget. */
    private boolean behindBudget;

    MarkPacer(Clock costClock) {
        this.costClock = costClock;
    }

    /** Replaces the clock that measures slice costs (tests use a manual one). */
    void setCostClock(Clock clock) {
        costClock = clock;
    }

    /**
     * Starts pacing a mark over {@code totalNodes} nodes.
     *
     * @param nowNs loop time now
     * @param intervalNsAverage average interval between GC starts, 0 if unknown
     */
    void startRun(long nowNs, long totalNodes, long intervalNsAverage, GcConfig config) {
        this.config = config;
        this.runStartNs = nowNs;
        this.totalNodes = totalNodes;
        this.intervalNsAverage = intervalNsAverage;
        nodesDone = 0;
        workNs = 0;
        sleptNs = 0;
        behindBudget = false;
        sliceNodes = costKnown() && config.sliceCostNsTarget() > 0
                ? GcPacing.nodesForCost(costNsPerNode, config.sliceCostNsTarget(), Integer.MAX_VALUE / 2,
                        config.nodesPerSliceMin())
                : GcPacing.nodesPerSlice(totalNodes, intervalNsAverage, config.sliceSleepNs(),
                        config.nodesPerSliceMin());
    }

    /** Nodes the next slice handles. */
    int sliceNodes() {
        return sliceNodes;
    }

    /** Just before a slice: starts measuring it. */
    void beginSlice() {
        sliceStartNs = costClock.nowNs();
    }

    /**
     * Just after a slice that visited {@code nodes} nodes: records its cost and sizes the next slice.
     *
     * @return the slice's cost, ns of the cost clock (0 where not measurable: simulated time)
     */
    long endSlice(long nodes) {
        long costNs = costClock.nowNs() - sliceStartNs;
        check(costNs >= 0 && nodes >= 0, "mark pacing: slice of %s nodes measured %s ns", nodes, costNs);
        nodesDone += nodes;
        workNs += costNs;
        if (costNs == 0 || nodes == 0) {
            return costNs; // nothing measurable (simulated time, or an empty index): keep the size
        }
        double sample = (double) costNs / nodes;
        costNsPerNode = costKnown() ? costNsPerNode + (sample - costNsPerNode) / GcStats.EWMA_WEIGHT : sample;
        if (config.sliceCostNsTarget() > 0) {
            long targetNs = config.sliceCostNsTarget() * (behindBudget ? GcPacing.BEHIND_BUDGET_COST_FACTOR : 1);
            sliceNodes = GcPacing.nodesForCost(costNsPerNode, targetNs, sliceNodes, config.nodesPerSliceMin());
        }
        return costNs;
    }

    /**
     * The pause before the next slice, ns: 0 to yield to the loop at once.
     *
     * @param nowNs loop time now
     * @param frontEndBusy true while front-end I/O is in flight
     * @param allocationsWaiting true if an allocation failed since the last slice or the next one would
     */
    long pauseNs(long nowNs, boolean frontEndBusy, boolean allocationsWaiting) {
        long remainingNodes = Math.max(0, totalNodes - nodesDone);
        long remainingWorkNs = costKnown() ? (long) (costNsPerNode * remainingNodes) : 0;
        long unslicedEstimateNs = costKnown() ? workNs + remainingWorkNs : -1;
        long budgetNs = GcPacing.durationBudgetNs(unslicedEstimateNs, config.durationPercentMax(),
                intervalNsAverage);
        // Loop time covers the work and the sleeps in real time; in simulated time it covers only the sleeps.
        long spentNs = Math.max(nowNs - runStartNs, workNs + sleptNs);
        long slackNs = GcPacing.slackNs(budgetNs, spentNs, remainingWorkNs);
        behindBudget = slackNs < 0;
        long slicesLeft = Math.max(1, (remainingNodes + sliceNodes - 1) / sliceNodes);
        long pause = GcPacing.pauseNs(frontEndBusy, allocationsWaiting, config.sliceSleepNs(), slackNs, slicesLeft);
        sleptNs += pause;
        return pause;
    }

    /** Measured cost of the current (or last) mark's slices, ns. */
    long workNs() {
        return workNs;
    }

    /** Sleeps the current (or last) mark was given, ns. */
    long sleptNs() {
        return sleptNs;
    }

    /** Average cost of one node, ns; 0 while not measurable. */
    double costNsPerNode() {
        return costNsPerNode;
    }

    private boolean costKnown() {
        return costNsPerNode > 0;
    }
}

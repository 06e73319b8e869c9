package io.blockcache.writeback;

import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;

/**
 * Keeps the backing device's queue between a low and a high goal while writeback runs at full speed (the early-flush
 * RFC, linux-kernel 2001): enough queued for the disk's scheduler to sort, not so much that the next front-end read
 * waits long behind it. The goals are ~100 ms and ~200 ms of the device's <em>measured</em> bandwidth.
 *
 * <p>Measurement: each sample takes the sectors the device completed (reads and writes, everyone's) over the
 * window and, if the device was busy for most of it (mean queue depth ≥ 1), folds that rate into an
 * exponentially weighted mean. Queued sectors are submitted minus completed sectors, re-based whenever the
 * device is seen empty so that failed requests (never counted as completed) cannot make the figure drift.
 *
 * <p>Hysteresis: once the queue reaches the high goal, new passes wait until it falls to the low goal.
 *
 * <p>Thread rule: the loop thread.
 */
final class QueueGovernor {
    /** A first guess until measured: 20 MB/s, a disk writing scattered 64 KiB extents. */
    static final double INITIAL_BANDWIDTH_SECTORS_PER_SECOND = 20e6 / 512;
    /** Weight of a new measurement in the mean: a few windows to settle, no single window dominates. */
    static final double MEASUREMENT_WEIGHT = 0.25;
    /** The early-flush RFC (linux-kernel, 2001): low goal = 100 ms of bandwidth, high goal twice that. */
    static final double LOW_GOAL_SECONDS = 0.1;
    static final double HIGH_GOAL_SECONDS = 0.2;

    private double bandwidthSectorsPerSecond = INITIAL_BANDWIDTH_SECTORS_PER_SECOND;
    private long lastCompletedSectors = -1;
    private long lastIntegralNs;
    private long lastSampleNs;
    private long queuedBaseSectors;
    private boolean aboveHigh;

    /** Takes one sample of the backing device's counters. */
    void sample(DeviceCounters backing, long nowNs) {
        long completed = completedSectors(backing);
        long integral = backing.inFlightIntegralNs(nowNs);
        if (lastCompletedSectors >= 0 && nowNs > lastSampleNs) {
            long windowNs = nowNs - lastSampleNs;
            double meanDepth = (double) (integral - lastIntegralNs) / windowNs;
            if (meanDepth >= 1.0 && completed > lastCompletedSectors) {
                double measured = (completed - lastCompletedSectors) * 1e9 / windowNs;
                bandwidthSectorsPerSecond += MEASUREMENT_WEIGHT * (measured - bandwidthSectorsPerSecond);
            }
        }
        lastCompletedSectors = completed;
        lastIntegralNs = integral;
        lastSampleNs = nowNs;
        if (backing.inFlight() == 0) {
            queuedBaseSectors = submittedSectors(backing) - completed;
        }
    }

    /** Sectors submitted to the backing device and not yet completed (everyone's). */
    long queuedSectors(DeviceCounters backing) {
        return Math.max(0, submittedSectors(backing) - completedSectors(backing) - queuedBaseSectors);
    }

    /**
     * True if another pass may be queued now; {@code floorSectors} keeps the goals from shrinking below what one
     * merged write needs.
     */
    boolean mayIssue(DeviceCounters backing, long floorSectors) {
        long queued = queuedSectors(backing);
        if (aboveHigh && queued <= lowGoalSectors(floorSectors)) {
            aboveHigh = false;
        } else if (!aboveHigh && queued >= highGoalSectors(floorSectors)) {
            aboveHigh = true;
        }
        return !aboveHigh;
    }

    long lowGoalSectors(long floorSectors) {
        return Math.max(floorSectors, (long) (bandwidthSectorsPerSecond * LOW_GOAL_SECONDS));
    }

    long highGoalSectors(long floorSectors) {
        return Math.max(2 * floorSectors, (long) (bandwidthSectorsPerSecond * HIGH_GOAL_SECONDS));
    }

    /** The measured bandwidth, sectors per second. */
    double bandwidthSectorsPerSecond() {
        return bandwidthSectorsPerSecond;
    }

    private static long completedSectors(DeviceCounters counters) {
        return counters.completedSectors(DeviceOp.READ) + counters.completedSectors(DeviceOp.WRITE);
    }

    private static long submittedSectors(DeviceCounters counters) {
        return counters.submittedSectors(DeviceOp.READ) + counters.submittedSectors(DeviceOp.WRITE);
    }
}

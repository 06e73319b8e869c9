package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;

/**
 * The write rate the backing device has shown lately, for the throttle's pace: sectors completed per second,
 * sampled from its {@link DeviceCounters} at most every {@link #SAMPLE_NS} and smoothed. It counts writeback's
 * writes and writes that went around the cache alike: both are what the backing device absorbs, and that is
 * what bounds how fast dirty data can drain.
 *
 * <p>Before anything was measured, and never below it, the rate is {@link #RATE_FLOOR_SECTORS_PER_SECOND}: a
 * throttle must pace, not stop, a writer while writeback is paused or has not started yet.
 *
 * <p>Thread rule: the loop thread.
 */
final class BackingRateMeter {
    /** Sample period: 100 ms, writeback's own sample period (early-flush seed: poll every 100 ms). */
    static final long SAMPLE_NS = 100_000_000L;
    /** 1 MiB/s: far below any disk, so that it only matters when nothing is being written back. */
    static final double RATE_FLOOR_SECTORS_PER_SECOND = (1 << 20) / (double) BlockDevice.SECTOR_BYTES;
    /** Weight of a new sample: 1/2, so the pace follows a change within a few hundred ms. */
    static final double SAMPLE_WEIGHT = 0.5;

    private final DeviceCounters counters;
    private long lastSectors;
    private long lastSampleNs;
    private boolean started;
    private double rateSectorsPerSecond;

    BackingRateMeter(DeviceCounters counters) {
        this.counters = counters;
    }

    /** The smoothed backing write rate in sectors per second, at least the floor. */
    double rateSectorsPerSecond(long nowNs) {
        if (!started) {
            started = true;
            lastSampleNs = nowNs;
            lastSectors = counters.completedSectors(DeviceOp.WRITE);
        } else if (nowNs - lastSampleNs >= SAMPLE_NS) {
            long sectors = counters.completedSectors(DeviceOp.WRITE);
            double sample = (sectors - lastSectors) * 1e9 / (nowNs - lastSampleNs);
            rateSectorsPerSecond += (sample - rateSectorsPerSecond) * SAMPLE_WEIGHT;
            lastSectors = sectors;
            lastSampleNs = nowNs;
        }
        return Math.max(RATE_FLOOR_SECTORS_PER_SECOND, rateSectorsPerSecond);
    }
}

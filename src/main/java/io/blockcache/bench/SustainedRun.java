package io.blockcache.bench;

import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeStats;
import io.blockcache.writeback.WritebackSettings;
import org.HdrHistogram.Histogram;

/**
 * Sustained overload (docs/WRITEBACK.md "Sustained writes"): 4 KiB random writes at queue depth {@link #DEPTH} over a
 * span larger than the cache's dirty limit, the front end never idle, writeback running from the start. After a
 * warm-up the run measures a window: front-end throughput and latency, what writeback cleaned, writes held by the
 * throttle and sent around the cache, and the mean dirty data. The reference is {@link IdealSweep} of a random set of
 * 4 KiB blocks at the window's mean dirty density over the same span: what one sorted sweep of that much dirty data
 * gets from the disk. Under sustained overload a write-back cache delivers at most what its writeback cleans (plus
 * the overwrites it absorbs), so front end ÷ ideal sweep says how much of the disk the controllers leave unused.
 *
 * <p>Thread rule: runs on the caller's thread, which drives the rig's loop.
 */
final class SustainedRun {
    /** The front end: fio at QD32. */
    static final int DEPTH = 32;
    /** Dirty share and throughput are sampled this often, simulated time. */
    static final long SAMPLE_NS = 1_000_000_000L;
    private static final int BLOCK_BYTES = RandomIoWorkload.BLOCK_BYTES;
    private static final double MIB = 1024.0 * 1024.0;

    /**
     * What one run measured over its window (rates per second of simulated time).
     *
     * @param frontendMiBPerSecond front-end writes completed in the window
     * @param windowIopsMin the lowest one-second window's IOPS (after the warm-up)
     * @param meanDirtyBytes the volume's dirty bytes averaged over the window's samples
     * @param writebackMiBPerSecond sectors writeback cleaned in the window
     * @param bypassedFraction front-end write sectors sent around the cache ÷ those written, in the window
     * @param writesThrottled writes the throttle held in the window
     * @param dirtyPercent dirty data share over time, the whole run (x seconds, y percent of the data buckets)
     * @param inUsePercent buckets holding dirty data over time, the whole run (the occupancy cutoff's view)
     */
    record Result(double frontendMiBPerSecond, double frontendIops, double windowIopsMin, double p50Us, double p99Us,
                  double meanDirtyBytes, double meanDirtyPercent, double writebackMiBPerSecond,
                  double bypassedFraction, long writesThrottled, double throttleDelayMeanUs, Series dirtyPercent,
                  Series inUsePercent) {
    }

    private SustainedRun() {
    }

    /**
     * @param spanBytes the volume bytes the writes are drawn from (a multiple of 4 KiB)
     * @param warmNs simulated time before the window, for the dirty share to settle
     * @param windowNs the measured window
     */
    static Result run(String name, long cacheBytes, HddConfig hdd, WritebackSettings settings, long spanBytes,
                      long warmNs, long windowNs, long seed) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, settings);
        Volume volume = rig.volume();
        RandomIoWorkload workload = new RandomIoWorkload(rig.loop, volume, spanBytes / BLOCK_BYTES, DEPTH, 0,
                new Prng(seed));
        Series dirty = new Series(name);
        Series inUse = new Series(name + ", buckets in use");
        workload.start();
        long writesAtSample = 0;
        double windowIopsMin = Double.MAX_VALUE;
        double dirtySum = 0;
        int dirtySamples = 0;
        Histogram latency = new Histogram(RandomIoWorkload.LATENCY_NS_MAX, 3);
        long[] start = null; // writes, cleaned sectors, bypassed, written, throttled, delay, at the window's start
        long endNs = rig.loop.nowNs() + warmNs + windowNs;
        for (long t = rig.loop.nowNs() + SAMPLE_NS; t <= endNs; t += SAMPLE_NS) {
            rig.loop.runUntil(t);
            long writes = workload.writesCompleted();
            dirty.add(t / 1e9, volume.cacheDirtyDataPercent());
            inUse.add(t / 1e9, volume.cacheInUsePercent());
            if (start != null) {
                windowIopsMin = Math.min(windowIopsMin, (writes - writesAtSample) / (SAMPLE_NS / 1e9));
                dirtySum += rig.dirtyBytes();
                dirtySamples++;
            }
            writesAtSample = writes;
            if (start == null && t >= endNs - windowNs) {
                start = counters(rig, workload);
                workload.recordInto(latency);
            }
        }
        long[] end = counters(rig, workload);
        boolean[] stopped = {false};
        workload.stop(() -> stopped[0] = true);
        rig.runUntil(() -> stopped[0]);
        Checks.check(workload.errors() == 0, "front-end errors: %s, first: %s", workload.errors(),
                workload.firstError());
        double seconds = windowNs / 1e9;
        long writes = end[0] - start[0];
        long written = end[3] - start[3];
        long throttled = end[4] - start[4];
        double meanDirty = dirtySamples == 0 ? 0 : dirtySum / dirtySamples;
        double meanDirtyPercent = 100.0 * meanDirty / (rig.set.space().table().bucketCount()
                * (double) rig.set.space().table().bucketSectors() * 512);
        return new Result(writes * BLOCK_BYTES / MIB / seconds, writes / seconds,
                windowIopsMin == Double.MAX_VALUE ? 0 : windowIopsMin, latency.getValueAtPercentile(50) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, meanDirty, meanDirtyPercent,
                (end[1] - start[1]) * 512 / MIB / seconds, written == 0 ? 0 : (end[2] - start[2]) / (double) written,
                throttled, throttled == 0 ? 0 : (end[5] - start[5]) / 1e3 / throttled, dirty, inUse);
    }

    /** {writes completed, sectors cleaned, sectors bypassed, sectors written, writes throttled, delay ns}. */
    private static long[] counters(BenchRig rig, RandomIoWorkload workload) {
        VolumeStats s = rig.volume().stats();
        long bypassed = s.writeBypassedSectors();
        return new long[] {workload.writesCompleted(), rig.writeback().counters().sectorsCleaned(), bypassed,
            s.writeCachedSectors() + bypassed, s.writesThrottled(), s.throttleDelayNsTotal()};
    }

    /**
     * The ideal sweep of {@code dirtyBytes} of random 4 KiB blocks over {@code spanBytes} on a fresh {@code hdd}, as
     * the volume at {@code offsetBytes} of it would be written.
     */
    static IdealSweep.Result ideal(HddConfig hdd, long offsetBytes, long spanBytes, long dirtyBytes, long seed) {
        Prng prng = new Prng(seed);
        long blocks = spanBytes / BLOCK_BYTES;
        double density = Math.min(1.0, Math.max(dirtyBytes, BLOCK_BYTES) / (double) spanBytes);
        java.util.List<long[]> chosen = new java.util.ArrayList<>();
        long[] run = null;
        for (long b = 0; b < blocks; b++) {
            if (!prng.chance(density)) {
                run = null;
            } else if (run != null && run[1] < IdealSweep.MERGED_BYTES_MAX) {
                run[1] += BLOCK_BYTES; // adjacent blocks are one write, as writeback merges them
            } else {
                run = new long[] {b * BLOCK_BYTES, BLOCK_BYTES};
                chosen.add(run);
            }
        }
        return IdealSweep.run(hdd, offsetBytes, Extents.sorted(chosen));
    }
}

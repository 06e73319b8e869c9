package io.blockcache.bench;

import io.blockcache.device.DeviceCounters;
import io.blockcache.loop.Checks;
import io.blockcache.sim.HddConfig;
import io.blockcache.writeback.WritebackSettings;

/**
 * Writes a dirty set into a fresh cache set with writeback stopped, lets the front end stay quiet long enough for
 * every policy to call it idle (classic needs ~30 s), then starts writeback and times it until nothing is dirty.
 * The clock and the backing queue's time-integral start when writeback starts.
 */
final class DrainRun {
    /** Quiet time before writeback starts: past classic's 30 s idle threshold, so both policies run "idle". */
    static final long QUIET_BEFORE_NS = 31_000_000_000L;
    /** Writes the front end keeps in flight while filling the cache. */
    static final int FILL_DEPTH = 32;

    /** What one drain measured. */
    record Result(long bytes, long elapsedNs, double meanBackingQueueDepth, long backingWrites) {
        double mibPerSecond() {
            return bytes / (1024.0 * 1024.0) / (elapsedNs / 1e9);
        }
    }

    private DrainRun() {
    }

    /** Runs one drain of {@code set} under {@code settings} on a {@code hdd} disk behind a {@code cacheBytes} SSD. */
    static Result run(long cacheBytes, HddConfig hdd, WritebackSettings settings, Extents set) {
        return run(cacheBytes, hdd, settings, set, 0);
    }

    /** As {@link #run(long, HddConfig, WritebackSettings, Extents)}, the fill flushing every so many writes. */
    static Result run(long cacheBytes, HddConfig hdd, WritebackSettings settings, Extents set, int flushEveryWrites) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, settings.toBuilder().running(false).build());
        FrontEndWriter.writeAll(rig.loop, rig.volume(), 0, set, FILL_DEPTH, flushEveryWrites);
        Checks.check(rig.dirtyBytes() == set.totalBytes(), "dirty %s != written %s", rig.dirtyBytes(),
                set.totalBytes());
        rig.loop.runFor(QUIET_BEFORE_NS);
        DeviceCounters backing = rig.hdd.counters();
        long startNs = rig.loop.nowNs();
        long integralStartNs = backing.inFlightIntegralNs(startNs);
        long writesStart = backing.completed(io.blockcache.device.DeviceOp.WRITE);
        rig.tune(b -> b.running(true));
        rig.runUntil(() -> rig.dirtyBytes() == 0 && rig.writeback().keysInFlight() == 0);
        long endNs = rig.loop.nowNs();
        long elapsedNs = endNs - startNs;
        double depth = (double) (backing.inFlightIntegralNs(endNs) - integralStartNs) / elapsedNs;
        return new Result(set.totalBytes(), elapsedNs, depth,
                backing.completed(io.blockcache.device.DeviceOp.WRITE) - writesStart);
    }

    /** Where the volume's byte 0 sits on the backing disk (the backing header comes first). */
    static long volumeOffsetBytes(long cacheBytes, HddConfig hdd) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, WritebackSettings.defaults());
        return rig.volume().backingOffsetBytes(0);
    }
}

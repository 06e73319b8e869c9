package io.blockcache.bench;

import io.blockcache.device.DeviceCounters;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.HddModel;

/**
 * The ideal writeback of a dirty set: every extent written straight to a fresh disk of the same model, once, in one
 * ascending LBA sweep, {@link #DEPTH} writes in flight, then one flush. No cache reads, no pass boundaries, no
 * pacing: what the disk itself allows. Writeback can at best match it.
 */
final class IdealSweep {
    /** Deep enough to fill the NCQ (32) and keep the host queue primed. */
    static final int DEPTH = 64;
    /** The largest write a caller should merge adjacent extents into: writeback's merged backing write, 1 MiB. */
    static final long MERGED_BYTES_MAX = 1L << 20;

    /** What the sweep measured. */
    record Result(long bytes, long elapsedNs, double meanQueueDepth) {
        double mibPerSecond() {
            return bytes / (1024.0 * 1024.0) / (elapsedNs / 1e9);
        }

        double seconds() {
            return elapsedNs / 1e9;
        }
    }

    private IdealSweep() {
    }

    /**
     * Writes {@code set} in ascending order at {@code offsetBytes} + start on a fresh {@code config} disk.
     *
     * @param offsetBytes where the volume's byte 0 sits on the backing disk
     */
    static Result run(HddConfig config, long offsetBytes, Extents set) {
        SimLoop loop = new SimLoop();
        HddModel hdd = new HddModel(loop, config);
        Extents sorted = Extents.sorted(set.ascending());
        long startNs = loop.nowNs();
        FrontEndWriter.writeAll(loop, hdd, offsetBytes, sorted, DEPTH);
        boolean[] flushed = {false};
        hdd.flush(result -> flushed[0] = result.ok());
        BenchRig.runUntil(loop, () -> flushed[0]);
        long elapsedNs = loop.nowNs() - startNs;
        DeviceCounters c = hdd.counters();
        return new Result(sorted.totalBytes(), elapsedNs, (double) c.inFlightIntegralNs(loop.nowNs()) / elapsedNs);
    }
}

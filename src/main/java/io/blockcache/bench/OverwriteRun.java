package io.blockcache.bench;

import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.writeback.WritebackSettings;
import org.HdrHistogram.Histogram;

/**
 * What the front-end hold of epoch ordering costs (docs/WRITEBACK.md, "Epoch ordering"): one random 4–64 KiB write
 * every {@code writeIntervalNs} into a small hot range, so that writes often land on data still dirty from an older
 * epoch, with a FLUSH at {@code cadence}, for {@link #WINDOW_NS}; the latency of every write from submission to
 * completion. Under {@code ordering=epochs} such a write waits until that older data is written back and flushed.
 */
final class OverwriteRun {
    /** The hot range the writes fall into: small enough that they overlap each other often. */
    static final long HOT_BYTES = 16L << 20;
    /** How long the writer writes. */
    static final long WINDOW_NS = 10_000_000_000L;
    /** Time after the window for the last writes to complete. */
    static final long TAIL_NS = 60_000_000_000L;

    /** What one run measured; latencies in microseconds. */
    record Result(long writes, long heldWrites, double p50Us, double p99Us, double maxUs) {
    }

    private OverwriteRun() {
    }

    static Result run(long cacheBytes, HddConfig hdd, WritebackSettings settings, long writeIntervalNs,
                      FlushCadence cadence, long seed) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, settings);
        Prng prng = new Prng(seed);
        Histogram latencyNs = new Histogram(3_600_000_000_000L, 3);
        long[] completed = {0};
        long slots = (HOT_BYTES - FrontEndWriter.EXTENT_BYTES_MAX) / 4096;
        long writes = 0;
        for (long t = writeIntervalNs; t <= WINDOW_NS; t += writeIntervalNs) {
            long offset = prng.nextLong(slots) * 4096;
            int length = 4096 * (1 + prng.nextInt(16));
            writes++;
            rig.loop.schedule(t, () -> {
                long startNs = rig.loop.nowNs();
                rig.volume().write(offset, FrontEndWriter.data(length), false, result -> {
                    Checks.check(result.ok(), "write failed: %s", result);
                    latencyNs.recordValue(rig.loop.nowNs() - startNs);
                    completed[0]++;
                    if (cadence.afterEveryWrite()) {
                        rig.volume().flush(flushed -> Checks.check(flushed.ok(), "flush failed: %s", flushed));
                    }
                });
            });
        }
        for (long t = cadence.intervalNs(); cadence.intervalNs() > 0 && t <= WINDOW_NS; t += cadence.intervalNs()) {
            rig.loop.schedule(t, () -> rig.volume().flush(
                    result -> Checks.check(result.ok(), "flush failed: %s", result)));
        }
        long all = writes;
        rig.loop.runFor(WINDOW_NS + TAIL_NS);
        Checks.check(completed[0] == all, "%s of %s writes completed", completed[0], all);
        return new Result(all, rig.volume().epochWaitsTotal(), latencyNs.getValueAtPercentile(50) / 1000.0,
                latencyNs.getValueAtPercentile(99) / 1000.0, latencyNs.getMaxValue() / 1000.0);
    }
}

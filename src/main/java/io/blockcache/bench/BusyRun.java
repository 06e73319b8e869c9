package io.blockcache.bench;

import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.writeback.WritebackSettings;

/**
 * The busy case: a dirty set sits in the cache while a steady random-read workload misses to the backing disk.
 * Writeback starts with the reader; both run for a window of virtual time that ends before the set is
 * {@code dirty_expire} old, so what is measured is the busy-mode rate control, not the expiry sweep.
 */
final class BusyRun {
    /** Reads the front end keeps outstanding: a modest application, well below the disk's 32 NCQ slots. */
    static final int READ_DEPTH = 4;
    static final int READ_BYTES = 4096;

    /** What one window measured. */
    record Result(double frontendIops, double p50Us, double p99Us, long writtenBackBytes, double seconds) {
        double writebackMiBPerSecond() {
            return writtenBackBytes / (1024.0 * 1024.0) / seconds;
        }
    }

    private BusyRun() {
    }

    static Result run(long cacheBytes, HddConfig hdd, WritebackSettings settings, Extents set, long windowNs,
                      long readerSeed) {
        return run(cacheBytes, hdd, settings, set, windowNs, readerSeed, 0);
    }

    /** As the other {@code run}, the fill flushing every {@code flushEveryWrites} writes (0: never). */
    static Result run(long cacheBytes, HddConfig hdd, WritebackSettings settings, Extents set, long windowNs,
                      long readerSeed, int flushEveryWrites) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, settings.toBuilder().running(false).build());
        FrontEndWriter.writeAll(rig.loop, rig.volume(), 0, set, DrainRun.FILL_DEPTH, flushEveryWrites);
        long dirtyStart = rig.dirtyBytes();
        RandomReader reader = new RandomReader(rig.loop, rig.volume(), new Prng(readerSeed), READ_BYTES);
        reader.start(READ_DEPTH);
        rig.tune(b -> b.running(true));
        rig.loop.runFor(windowNs);
        reader.stop();
        double seconds = windowNs / 1e9;
        return new Result(reader.completed() / seconds, reader.latencyUs(50), reader.latencyUs(99),
                dirtyStart - rig.dirtyBytes(), seconds);
    }
}

package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.writeback.WritebackSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The case of the early-flush RFC (linux-kernel, 2001): write bursts separated by idleness. Each burst submits one
 * random write (4–64 KiB) every {@code writeIntervalNs} for {@code burstNs}; then the front end is quiet for
 * {@code gapNs}. A probe looks at the engine every {@link #PROBE_NS}: dirty bytes (the chart), whether writeback runs
 * at full speed (the engine's idle decision, which switches pass size, pacing and queue goals), and whether anything is
 * left to clean.
 */
final class BurstsRun {
    /** Probe period: well below the engine's 100 ms sample, so reaction times are resolved to 5 ms. */
    static final long PROBE_NS = 5_000_000L;
    /** Chart resolution: every 20th probe. */
    static final int CHART_EVERY_PROBES = 20;
    /** Quiet time before the first burst. */
    static final long LEAD_NS = 1_000_000_000L;
    /** The dirty set is taken this long after the last write's submission, once that write is in the index. */
    static final long SNAPSHOT_DELAY_NS = 1_000_000L;

    /**
     * One burst's figures; a null means "did not happen before the next burst began" (or, for busyReactionMs,
     * that writeback was not at full speed when this burst began: nothing to back off from).
     *
     * @param dirtyBytesAtEnd dirty bytes just after the burst's last write
     * @param timeToCleanSeconds from the last write's submission until nothing was dirty
     * @param idealTimeToCleanSeconds a sorted sweep of exactly the dirty extents at that moment on a fresh disk
     * @param idleReactionMs from the last write's submission until writeback ran at full speed
     * @param busyReactionMs from this burst's first write until writeback backed off
     */
    record Burst(int index, long dirtyBytesAtEnd, Double timeToCleanSeconds, double idealTimeToCleanSeconds,
                 Double idleReactionMs, Double busyReactionMs) {
    }

    /** All bursts of one policy, and the dirty-bytes curve (seconds, MiB). */
    record Result(List<Burst> bursts, Series dirtyMiB) {
    }

    /** The schedule: bursts of {@code burstNs}, quiet {@code gapNs} after each, a write every interval. */
    record Schedule(int burstCount, long burstNs, long gapNs, long writeIntervalNs) {
        long startNs(int k) {
            return LEAD_NS + k * (burstNs + gapNs);
        }

        long lastSubmitNs(int k) {
            return startNs(k) + (burstNs - 1) / writeIntervalNs * writeIntervalNs;
        }

        long endNs() {
            return startNs(burstCount);
        }
    }

    private BurstsRun() {
    }

    static Result run(String name, long cacheBytes, HddConfig hdd, WritebackSettings settings, Schedule schedule,
                      long seed) {
        return run(name, cacheBytes, hdd, settings, schedule, seed, FlushCadence.NEVER);
    }

    /** As the other {@code run}, the writer flushing at {@code cadence}. */
    static Result run(String name, long cacheBytes, HddConfig hdd, WritebackSettings settings, Schedule schedule,
                      long seed, FlushCadence cadence) {
        BenchRig rig = new BenchRig(cacheBytes, hdd, settings);
        long offset = rig.volume().backingOffsetBytes(0);
        Probe probe = new Probe(rig, name);
        probe.start();
        scheduleWrites(rig, new Prng(seed), schedule, cadence);
        // Flushes only while a burst writes, and one after its last write, as a file system syncs only when there
        // is something to sync: a FLUSH is a front-end request, so flushing through the gaps would keep writeback
        // from ever seeing the front end idle.
        for (int k = 0; cadence.intervalNs() > 0 && k < schedule.burstCount(); k++) {
            long endNs = schedule.lastSubmitNs(k) + cadence.intervalNs();
            for (long t = schedule.startNs(k) + cadence.intervalNs(); t <= endNs; t += cadence.intervalNs()) {
                rig.loop.schedule(t - rig.loop.nowNs(), () -> rig.volume().flush(
                        result -> Checks.check(result.ok(), "flush failed: %s", result)));
            }
        }
        double[] ideal = new double[schedule.burstCount()];
        long[] dirtyAtEnd = new long[schedule.burstCount()];
        for (int k = 0; k < schedule.burstCount(); k++) {
            rig.loop.runUntil(schedule.lastSubmitNs(k) + SNAPSHOT_DELAY_NS);
            Extents dirty = dirtyExtents(rig);
            dirtyAtEnd[k] = dirty.totalBytes();
            ideal[k] = dirty.count() == 0 ? 0 : IdealSweep.run(hdd, offset, dirty).seconds();
        }
        rig.loop.runUntil(schedule.endNs());
        List<Burst> bursts = new ArrayList<>();
        for (int k = 0; k < schedule.burstCount(); k++) {
            long last = schedule.lastSubmitNs(k);
            long next = schedule.startNs(k + 1);
            long idle = probe.first(last, next, true, false);
            long clean = probe.first(last, next, false, true);
            long start = schedule.startNs(k);
            Double busy = null;
            if (probe.idleAt(start - 1)) {
                long backedOff = probe.first(start - 1, last, false, false);
                busy = backedOff < 0 ? null : Math.max(0, backedOff - start) / 1e6;
            }
            bursts.add(new Burst(k + 1, dirtyAtEnd[k], clean < 0 ? null : (clean - last) / 1e9, ideal[k],
                    idle < 0 ? null : (idle - last) / 1e6, busy));
        }
        return new Result(bursts, probe.curve);
    }

    private static void scheduleWrites(BenchRig rig, Prng prng, Schedule s, FlushCadence cadence) {
        long span = rig.volume().sizeBytes() - FrontEndWriter.EXTENT_BYTES_MAX;
        long slots = span / 4096;
        for (int k = 0; k < s.burstCount(); k++) {
            for (long t = s.startNs(k); t <= s.lastSubmitNs(k); t += s.writeIntervalNs()) {
                long offset = prng.nextLong(slots) * 4096;
                int length = 4096 * (1 + prng.nextInt(16));
                rig.loop.schedule(t - rig.loop.nowNs(), () -> rig.volume().write(offset, FrontEndWriter.data(length),
                        false, result -> {
                            Checks.check(result.ok(), "burst write failed: %s", result);
                            if (cadence.afterEveryWrite()) {
                                rig.volume().flush(flushed -> Checks.check(flushed.ok(), "flush failed: %s",
                                        flushed));
                            }
                        }));
            }
        }
    }

    /** The volume's dirty extents now, ascending (a whole-index walk: the bench may stall the loop, it is a probe). */
    static Extents dirtyExtents(BenchRig rig) {
        ExtentIndex index = rig.volume().index().extents();
        List<long[]> dirty = new ArrayList<>();
        long cursor = 0;
        while (cursor != ExtentIndex.CURSOR_END) {
            cursor = index.forEachInNodes(cursor, 1024, (start, length, location, crc, crcOffset, crcLength) -> {
                if (ExtentLocation.dirty(location)) {
                    dirty.add(new long[] {start * BlockDevice.SECTOR_BYTES, length * BlockDevice.SECTOR_BYTES});
                }
            });
        }
        return Extents.sorted(dirty);
    }

    /** Looks at the engine every {@link #PROBE_NS} and keeps what it saw. */
    private static final class Probe {
        private final BenchRig rig;
        private final Series curve;
        private final List<long[]> seen = new ArrayList<>(); // {time, idle 0/1, clean 0/1}
        private int probes;

        Probe(BenchRig rig, String name) {
            this.rig = rig;
            this.curve = new Series(name);
        }

        void start() {
            rig.loop.schedule(PROBE_NS, this::look);
        }

        private void look() {
            long now = rig.loop.nowNs();
            boolean clean = rig.dirtyBytes() == 0 && rig.writeback().keysInFlight() == 0;
            seen.add(new long[] {now, rig.writeback().frontEndIdle() ? 1 : 0, clean ? 1 : 0});
            if (probes++ % CHART_EVERY_PROBES == 0) {
                curve.add(now / 1e9, rig.dirtyBytes() / (1024.0 * 1024.0));
            }
            rig.loop.schedule(PROBE_NS, this::look);
        }

        /** Whether the engine was at full speed at the last probe at or before {@code timeNs}. */
        boolean idleAt(long timeNs) {
            boolean idle = false;
            for (long[] s : seen) {
                if (s[0] > timeNs) {
                    break;
                }
                idle = s[1] == 1;
            }
            return idle;
        }

        /**
         * The first probe time in ({@code fromNs}, {@code toNs}) that saw idle == {@code idle} (when not
         * {@code clean}) or nothing dirty (when {@code clean}); -1 if none.
         */
        long first(long fromNs, long toNs, boolean idle, boolean clean) {
            for (long[] s : seen) {
                if (s[0] <= fromNs || s[0] >= toNs) {
                    continue;
                }
                if (clean ? s[2] == 1 : (s[1] == 1) == idle) {
                    return s[0];
                }
            }
            return -1;
        }
    }
}

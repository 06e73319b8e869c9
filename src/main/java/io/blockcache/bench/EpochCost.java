package io.blockcache.bench;

import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackPolicy;
import io.blockcache.writeback.WritebackSettings;
import java.util.List;

/**
 * The cost of epoch ordering (docs/WRITEBACK.md, "Epoch ordering"): idle drain, busy front end
 * and bursts on the HDD model, the front end flushing every second, every 100 ms or after every write, each run
 * with the modern engine unordered ({@code modern}), ordered in place ({@code epochs}) and ordered through a backing
 * log of {@link BenchRig#JOURNALED_LOG_BYTES} ({@code journaled}), plus bcache's classic algorithm
 * at a flush a second (it ignores epochs; the flushes only add backing flushes). For the pre-written sets of the
 * idle drain and the busy case the cadence is turned into writes per FLUSH for an application writing one extent
 * every {@link WritebackBenchScale#burstWriteIntervalNs()} (the bursts' rate).
 */
final class EpochCost {
    private static final List<FlushCadence> CADENCES = List.of(FlushCadence.EVERY_SECOND, FlushCadence.EVERY_100_MS,
            FlushCadence.EVERY_WRITE);
    private static final int EXTENT_BYTES_MIN = 4096;
    private static final int EXTENT_BYTES_MAX = 65536;
    /** Log region sizes of the journaled bound: from a few epochs' worth to more than the whole dirty set. */
    private static final List<Long> LOG_BYTES = List.of(16L << 20, 64L << 20, 256L << 20);

    private EpochCost() {
    }

    /** Runs the three experiments, adding rows to {@code rows}. */
    static void run(WritebackBenchScale scale, long seed, HddConfig disk, WritebackSettings idle,
                    List<BenchRow> rows, List<Series> burstCurves) {
        // Room for the journaled variant's backing log before the volume (BenchRig.JOURNALED_LOG_BYTES).
        long span = disk.sizeBytes() - (64L << 20) - BenchRig.JOURNALED_LOG_BYTES;
        Extents drainSet = Extents.random(new Prng(seed + 10), span, scale.busyDirtyBytes(), EXTENT_BYTES_MIN,
                EXTENT_BYTES_MAX);
        long interval = scale.burstWriteIntervalNs();
        for (Variant v : variants()) {
            int every = v.cadence.writesPerFlush(interval);
            DrainRun.Result r = DrainRun.run(scale.cacheBytes(), disk, v.settings(idle), drainSet, every);
            rows.add(v.row("epochs-idle-drain").with("writesPerFlush", every).with("dirtyBytes", r.bytes())
                    .with("writebackMiBPerSecond", r.mibPerSecond())
                    .with("meanBackingQueueDepth", r.meanBackingQueueDepth())
                    .with("timeToCleanSeconds", r.elapsedNs() / 1e9));
        }
        journaledBound(scale, disk, drainSet, rows);
        Extents busySet = Extents.random(new Prng(seed + 11), span, scale.busyDirtyBytes(), EXTENT_BYTES_MIN,
                EXTENT_BYTES_MAX);
        for (Variant v : variants()) {
            int every = v.cadence.writesPerFlush(interval);
            BusyRun.Result r = BusyRun.run(scale.cacheBytes(), disk, v.settings(WritebackSettings.defaults()), busySet,
                    scale.busyWindowNs(), seed + 12, every);
            rows.add(v.row("epochs-busy").with("writesPerFlush", every).with("frontendIops", r.frontendIops())
                    .with("frontendP99Us", r.p99Us()).with("writebackMiBPerSecond", r.writebackMiBPerSecond()));
        }
        BurstsRun.Schedule schedule = new BurstsRun.Schedule(scale.burstCount(), 10_000_000_000L, 20_000_000_000L,
                interval);
        long cacheBytes = Math.min(scale.cacheBytes(), 1L << 30);
        for (Variant v : variants()) {
            BurstsRun.Result r = BurstsRun.run(v.name + "/" + v.cadence.label(), cacheBytes, disk,
                    v.settings(WritebackSettings.defaults()), schedule, seed + 13, v.cadence);
            double cleanSum = 0;
            int cleaned = 0;
            for (BurstsRun.Burst b : r.bursts()) {
                if (b.timeToCleanSeconds() != null) {
                    cleanSum += b.timeToCleanSeconds();
                    cleaned++;
                }
            }
            if (v.cadence == FlushCadence.EVERY_SECOND) {
                burstCurves.add(r.dirtyMiB());
            }
            rows.add(v.row("epochs-bursts").with("bursts", r.bursts().size()).with("burstsCleaned", cleaned)
                    .with("meanTimeToCleanSeconds", cleaned == 0 ? null : cleanSum / cleaned));
        }
    }

    /**
     * The idle drain's set through journaled write-back at its best ({@link JournaledBound}): every cadence, every
     * log size, beside the ideal unordered sweep of the same set.
     */
    private static void journaledBound(WritebackBenchScale scale, HddConfig disk, Extents set, List<BenchRow> rows) {
        long offset = DrainRun.volumeOffsetBytes(scale.cacheBytes(), disk);
        double ideal = IdealSweep.run(disk, offset, set).mibPerSecond();
        long interval = scale.burstWriteIntervalNs();
        for (FlushCadence cadence : CADENCES) {
            int every = cadence.writesPerFlush(interval);
            for (long logBytes : LOG_BYTES) {
                JournaledBound.Result r = JournaledBound.run(disk, offset, set, every, logBytes);
                rows.add(new BenchRow("epochs-idle-drain", "journaled-bound").with("flushEvery", cadence.label())
                        .with("writesPerFlush", every).with("logMiB", logBytes >> 20).with("dirtyBytes", r.bytes())
                        .with("writebackMiBPerSecond", r.mibPerSecond()).with("transactions", r.transactions())
                        .with("logBytesWritten", r.logBytesWritten()).with("idealSweepMiBPerSecond", ideal)
                        .with("timeToCleanSeconds", r.elapsedNs() / 1e9));
            }
        }
    }

    /** The front-end hold: writes into a hot range, modern and epochs, a FLUSH every second and every 100 ms. */
    static void overwrites(WritebackBenchScale scale, long seed, HddConfig disk, List<BenchRow> rows) {
        long cacheBytes = Math.min(scale.cacheBytes(), 1L << 30);
        for (FlushCadence cadence : List.of(FlushCadence.EVERY_SECOND, FlushCadence.EVERY_100_MS)) {
            for (String name : List.of("modern", "epochs", "journaled")) {
                Variant v = new Variant(name, cadence);
                OverwriteRun.Result r = OverwriteRun.run(cacheBytes, disk, v.settings(WritebackSettings.defaults()),
                        scale.burstWriteIntervalNs(), cadence, seed + 14);
                rows.add(v.row("epochs-overwrites").with("writes", r.writes()).with("heldWrites", r.heldWrites())
                        .with("writeP50Us", r.p50Us()).with("writeP99Us", r.p99Us()).with("writeMaxUs", r.maxUs()));
            }
        }
    }

    private static List<Variant> variants() {
        List<Variant> out = new java.util.ArrayList<>();
        out.add(new Variant("classic", FlushCadence.EVERY_SECOND));
        for (FlushCadence cadence : CADENCES) {
            out.add(new Variant("modern", cadence));
            out.add(new Variant("epochs", cadence));
            out.add(new Variant("journaled", cadence));
        }
        return out;
    }

    /** One policy at one cadence. */
    private record Variant(String name, FlushCadence cadence) {
        WritebackSettings settings(WritebackSettings base) {
            return switch (name) {
                case "classic" -> base.toBuilder().policy(WritebackPolicy.CLASSIC).build();
                case "epochs" -> base.toBuilder().ordering(WritebackOrdering.EPOCHS).build();
                case "journaled" -> base.toBuilder().ordering(WritebackOrdering.JOURNALED).build();
                default -> base;
            };
        }

        BenchRow row(String experiment) {
            return new BenchRow(experiment, name).with("flushEvery", cadence.label());
        }
    }
}

package io.blockcache.bench;

import io.blockcache.format.BackingHeader;
import io.blockcache.loop.Prng;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.ObjectStoreConfig;
import io.blockcache.writeback.WritebackOrder;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackPolicy;
import io.blockcache.writeback.WritebackSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code bench writeback}: the four writeback experiments, in simulated time on the HDD and SSD
 * models. Every experiment builds its dirty set from one seed and runs each policy on a fresh cache set holding
 * that same set, so policies differ in nothing else. Rows go to {@code out} as each experiment finishes.
 */
public final class WritebackBench {
    private static final long DAY_NS = 86_400_000_000_000L;
    private static final int EXTENT_BYTES_MIN = 4096;
    private static final int EXTENT_BYTES_MAX = 65536;
    private static final long BURST_NS = 10_000_000_000L;
    private static final long GAP_NS = 20_000_000_000L;

    private final WritebackBenchScale scale;
    private final long seed;
    private final HddConfig disk = HddConfig.defaults().withWriteCache(false);
    private final List<BenchRow> rows = new ArrayList<>();
    private final List<Series> burstCurves = new ArrayList<>();
    private final List<Series> epochCurves = new ArrayList<>();
    private final List<Series> sustainedCurves = new ArrayList<>();

    private WritebackBench(WritebackBenchScale scale, long seed) {
        this.scale = scale;
        this.seed = seed;
    }

    /** Runs every experiment; each row is handed to {@code out} as soon as it exists. */
    public static WritebackBench run(boolean quick, long seed, Consumer<String> progress) {
        WritebackBench bench = new WritebackBench(quick ? WritebackBenchScale.quick() : WritebackBenchScale.full(),
                seed);
        progress.accept("idle drain");
        bench.idleDrain(false);
        bench.idleDrain(true);
        progress.accept("busy");
        bench.busy();
        progress.accept("sweep");
        bench.sweep();
        progress.accept("bursts");
        bench.bursts();
        progress.accept("sustained");
        bench.sustained();
        progress.accept("epochs");
        EpochCost.run(bench.scale, seed, bench.disk, idleSettings(), bench.rows, bench.epochCurves);
        EpochCost.overwrites(bench.scale, seed, bench.disk, bench.rows);
        progress.accept("object store");
        bench.objectStore();
        return bench;
    }

    /** Runs only the object-store experiment. */
    public static WritebackBench runObjectStore(boolean quick, long seed, Consumer<String> progress) {
        WritebackBench bench = new WritebackBench(quick ? WritebackBenchScale.quick() : WritebackBenchScale.full(),
                seed);
        progress.accept("object store");
        bench.objectStore();
        return bench;
    }

    /** Runs only the sustained-overload experiment. */
    public static WritebackBench runSustained(boolean quick, long seed, Consumer<String> progress) {
        WritebackBench bench = new WritebackBench(quick ? WritebackBenchScale.quick() : WritebackBenchScale.full(),
                seed);
        progress.accept("sustained");
        bench.sustained();
        return bench;
    }

    /** Every row, in the order measured. */
    public List<String> jsonLines() {
        return rows.stream().map(BenchRow::toJson).toList();
    }

    List<BenchRow> rows() {
        return rows;
    }

    List<Series> burstCurves() {
        return burstCurves;
    }

    /** Dirty data share over the sustained-overload runs: modern, classic. */
    List<Series> sustainedCurves() {
        return sustainedCurves;
    }

    /** Dirty data over the bursts with a flush a second: classic, modern, epochs. */
    List<Series> epochCurves() {
        return epochCurves;
    }

    /** Where extents may lie: the whole disk but a margin for the backing header at its start. */
    private static long span(HddConfig hdd) {
        return hdd.sizeBytes() - (64L << 20);
    }

    /** Idle drain and sweep isolate the idle path: no dirty_expire sweep (it would skip the queue governor). */
    private static WritebackSettings idleSettings() {
        return WritebackSettings.defaults().toBuilder().dirtyExpireNs(DAY_NS).build();
    }

    private static WritebackSettings policy(WritebackSettings base, String name) {
        return switch (name) {
            case "classic" -> base.toBuilder().policy(WritebackPolicy.CLASSIC).build();
            case "modern", "lba" -> base.toBuilder().order(WritebackOrder.LBA).build();
            case "fifo" -> base.toBuilder().order(WritebackOrder.FIFO).build();
            case "auto" -> base.toBuilder().order(WritebackOrder.AUTO).build();
            default -> throw new IllegalArgumentException(name);
        };
    }

    private void idleDrain(boolean writeCache) {
        HddConfig hdd = disk.withWriteCache(writeCache);
        long bytes = writeCache ? scale.idleDrainCacheOnBytes() : scale.idleDrainBytes();
        Extents set = Extents.random(new Prng(seed), span(hdd), bytes, EXTENT_BYTES_MIN,
                EXTENT_BYTES_MAX);
        long offset = DrainRun.volumeOffsetBytes(scale.cacheBytes(), hdd);
        IdealSweep.Result ideal = IdealSweep.run(hdd, offset, set);
        rows.add(new BenchRow("idle-drain", "ideal").with("hddWriteCache", writeCache)
                .with("dirtyBytes", set.totalBytes()).with("writebackMiBPerSecond", ideal.mibPerSecond())
                .with("meanBackingQueueDepth", ideal.meanQueueDepth()).with("timeToCleanSeconds", ideal.seconds())
                .with("idealTimeToCleanSeconds", ideal.seconds()));
        for (String name : List.of("modern", "classic")) {
            DrainRun.Result r = DrainRun.run(scale.cacheBytes(), hdd, policy(idleSettings(), name), set);
            rows.add(new BenchRow("idle-drain", name).with("hddWriteCache", writeCache)
                    .with("dirtyBytes", set.totalBytes()).with("writebackMiBPerSecond", r.mibPerSecond())
                    .with("meanBackingQueueDepth", r.meanBackingQueueDepth())
                    .with("timeToCleanSeconds", r.elapsedNs() / 1e9).with("idealTimeToCleanSeconds", ideal.seconds()));
        }
    }

    private void busy() {
        Extents set = Extents.random(new Prng(seed + 1), span(disk), scale.busyDirtyBytes(),
                EXTENT_BYTES_MIN, EXTENT_BYTES_MAX);
        for (String name : List.of("modern", "classic")) {
            BusyRun.Result r = BusyRun.run(scale.cacheBytes(), disk, policy(WritebackSettings.defaults(), name), set,
                    scale.busyWindowNs(), seed + 2);
            rows.add(new BenchRow("busy", name).with("frontendIops", r.frontendIops())
                    .with("frontendP50Us", r.p50Us()).with("frontendP99Us", r.p99Us())
                    .with("writebackMiBPerSecond", r.writebackMiBPerSecond())
                    .with("writtenBackBytes", r.writtenBackBytes()).with("windowSeconds", r.seconds()));
        }
    }

    private void sweep() {
        for (int blockBytes : scale.sweepBlockBytes()) {
            Extents set = Extents.random(new Prng(seed + 3 + blockBytes), span(disk), scale.sweepBytes(),
                    blockBytes, blockBytes);
            for (String name : List.of("lba", "fifo", "auto", "classic")) {
                DrainRun.Result r = DrainRun.run(scale.cacheBytes(), disk, policy(idleSettings(), name), set);
                rows.add(new BenchRow("sweep", name).with("blockSizeBytes", blockBytes)
                        .with("writebackMiBPerSecond", r.mibPerSecond())
                        .with("meanBackingQueueDepth", r.meanBackingQueueDepth())
                        .with("timeToCleanSeconds", r.elapsedNs() / 1e9));
            }
        }
    }

    /**
     * Idle drains onto the object-store model: a region rewritten whole (every chunk whole), the same region with
     * every other extent already cached clean (whole chunks only if the gaps are filled from the cache), and a
     * sparse set over the whole store (every chunk partial: a GET each). Each set is aligned so that the region
     * starts on a chunk of the backing device (the volume's data starts 1 MiB into it, after the header).
     */
    private void objectStore() {
        ObjectStoreConfig store = ObjectStoreConfig.defaults();
        long align = store.chunkBytes() - BackingHeader.DEFAULT_DATA_OFFSET_BYTES;
        Extents region = Extents.tiling(new Prng(seed + 5), scale.objectStoreRegionBytes(), EXTENT_BYTES_MIN,
                EXTENT_BYTES_MAX);
        Extents sparse = Extents.random(new Prng(seed + 6), store.sizeBytes() - (64L << 20),
                scale.objectStoreSparseBytes(), EXTENT_BYTES_MIN, EXTENT_BYTES_MAX);
        Extents cleanHalf = region.alternate(true, new Prng(seed + 7));
        Extents dirtyHalf = region.alternate(false, new Prng(seed + 8));
        long cacheBytes = Math.max(scale.cacheBytes(), 2 * scale.objectStoreRegionBytes());
        Object[][] sets = {{"whole-chunks", null, region, align}, {"gaps-cached", cleanHalf, dirtyHalf, align},
            {"sparse", null, sparse, 0L}};
        for (Object[] set : sets) {
            for (String name : List.of("modern", "classic")) {
                ObjectStoreRun.Result r = ObjectStoreRun.run(cacheBytes, store, policy(idleSettings(), name),
                        (Extents) set[1], (Extents) set[2], (long) set[3], seed + 9);
                rows.add(new BenchRow("object-store", name).with("set", set[0]).with("dirtyBytes", r.dirtyBytes())
                        .with("writebackMiBPerSecond", r.mibPerSecond()).with("timeToCleanSeconds", r.elapsedNs() / 1e9)
                        .with("idealTimeToCleanSeconds", r.ideal().seconds())
                        .with("steadyUploadMBPerSecond", r.steadyPutBytesPerSecond() / 1e6)
                        .with("idealUploadMBPerSecond", r.ideal().uploadBytesPerSecond() / 1e6)
                        .with("chunks", r.ideal().chunks()).with("idealGets", r.ideal().chunksToFetch())
                        .with("puts", r.puts()).with("gets", r.gets()).with("putMiB", r.putBytes() / 1048576.0)
                        .with("getMiB", r.getBytes() / 1048576.0).with("chunksWhole", r.chunksWhole())
                        .with("chunksPartial", r.chunksPartial()).with("chunksInFlightPeak", r.chunksInFlightPeak()));
            }
        }
        objectStoreOrdering(store, align, cacheBytes);
    }

    /**
     * Ordering on an object store (docs/WRITEBACK.md "Journaled write-back", on an object store): a
     * quarter of the region rewritten whole by an application flushing every second or every 100 ms (at the bursts'
     * write rate), drained idle unordered, in strict epochs and through a backing log of a quarter of the set (groups
     * of a few hundred epochs) and of twice the set (one group). A quarter, because every byte a group logs is held
     * twice by the models (stored, and volatile until the flush), and the whole region with a log to match passed a
     * 6 GiB heap.
     */
    private void objectStoreOrdering(ObjectStoreConfig store, long align, long cacheBytes) {
        long setBytes = scale.objectStoreRegionBytes() / 4;
        Extents set = Extents.tiling(new Prng(seed + 15), setBytes, EXTENT_BYTES_MIN, EXTENT_BYTES_MAX);
        for (FlushCadence cadence : List.of(FlushCadence.EVERY_SECOND, FlushCadence.EVERY_100_MS)) {
            int every = cadence.writesPerFlush(scale.burstWriteIntervalNs());
            for (Object[] variant : new Object[][] {{WritebackOrdering.NONE, 0L}, {WritebackOrdering.EPOCHS, 0L},
                {WritebackOrdering.JOURNALED, setBytes / 4}, {WritebackOrdering.JOURNALED, 2 * setBytes}}) {
                WritebackOrdering ordering = (WritebackOrdering) variant[0];
                long logBytes = (long) variant[1];
                String name = ordering == WritebackOrdering.NONE ? "modern" : ordering.name().toLowerCase(Locale.ROOT);
                WritebackSettings settings = idleSettings().toBuilder().ordering(ordering).build();
                ObjectStoreRun.Result r = ObjectStoreRun.run(cacheBytes, store, settings, null, set, align,
                        seed + 9, every, logBytes);
                rows.add(new BenchRow("object-store-ordering", name).with("set", "whole-chunks")
                        .with("flushEvery", cadence.label()).with("writesPerFlush", every)
                        .with("logMiB", logBytes >> 20)
                        .with("dirtyBytes", r.dirtyBytes()).with("writebackMiBPerSecond", r.mibPerSecond())
                        .with("timeToCleanSeconds", r.elapsedNs() / 1e9)
                        .with("idealTimeToCleanSeconds", r.ideal().seconds()).with("puts", r.puts())
                        .with("gets", r.gets()).with("putMiB", r.putBytes() / 1048576.0)
                        .with("getMiB", r.getBytes() / 1048576.0).with("chunksWhole", r.chunksWhole())
                        .with("chunksPartial", r.chunksPartial()));
            }
        }
    }

    /**
     * Sustained overload ({@link SustainedRun}): each policy's steady-state front end, and the ideal sweep at the
     * dirty density that policy held (a row "ideal" per policy, named by the field {@code against}).
     */
    private void sustained() {
        long cacheBytes = scale.sustainedCacheBytes();
        long spanBytes = cacheBytes;
        for (String name : List.of("modern", "classic")) {
            SustainedRun.Result r = SustainedRun.run(name, cacheBytes, disk, policy(WritebackSettings.defaults(), name),
                    spanBytes, scale.sustainedWarmNs(), scale.sustainedWindowNs(), seed + 16);
            IdealSweep.Result ideal = SustainedRun.ideal(disk, DrainRun.volumeOffsetBytes(cacheBytes, disk), spanBytes,
                    (long) r.meanDirtyBytes(), seed + 17);
            sustainedCurves.add(r.dirtyPercent());
            rows.add(new BenchRow("sustained", name).with("spanBytes", spanBytes)
                    .with("frontendMiBPerSecond", r.frontendMiBPerSecond()).with("frontendIops", r.frontendIops())
                    .with("windowIopsMin", r.windowIopsMin()).with("frontendP50Us", r.p50Us())
                    .with("frontendP99Us", r.p99Us()).with("meanDirtyPercent", r.meanDirtyPercent())
                    .with("writebackMiBPerSecond", r.writebackMiBPerSecond())
                    .with("bypassedPercent", 100 * r.bypassedFraction()).with("writesThrottled", r.writesThrottled())
                    .with("throttleDelayMeanUs", r.throttleDelayMeanUs())
                    .with("idealSweepMiBPerSecond", ideal.mibPerSecond())
                    .with("windowSeconds", scale.sustainedWindowNs() / 1e9));
        }
    }

    private void bursts() {
        BurstsRun.Schedule schedule = new BurstsRun.Schedule(scale.burstCount(), BURST_NS, GAP_NS,
                scale.burstWriteIntervalNs());
        long cacheBytes = Math.min(scale.cacheBytes(), 1L << 30);
        for (String name : List.of("modern", "classic")) {
            BurstsRun.Result r = BurstsRun.run(name, cacheBytes, disk, policy(WritebackSettings.defaults(), name),
                    schedule, seed + 4);
            burstCurves.add(r.dirtyMiB());
            for (BurstsRun.Burst b : r.bursts()) {
                rows.add(new BenchRow("bursts", name).with("burst", b.index())
                        .with("dirtyBytes", b.dirtyBytesAtEnd()).with("timeToCleanSeconds", b.timeToCleanSeconds())
                        .with("idealTimeToCleanSeconds", b.idealTimeToCleanSeconds())
                        .with("idleReactionMs", b.idleReactionMs()).with("busyReactionMs", b.busyReactionMs()));
            }
        }
    }
}

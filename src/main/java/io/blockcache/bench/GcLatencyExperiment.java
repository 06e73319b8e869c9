package io.blockcache.bench;

import static io.blockcache.loop.Checks.check;
import io.blockcache.device.MemoryDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.gc.GarbageCollector;
import io.blockcache.gc.GcConfig;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * GC latency in real time: one cache set on sparse memory devices under a {@link RealLoop},
 * its index prefilled with {@code extents} clean 4 KiB extents ({@link IndexPrefill}), a closed-loop front end
 * of 4 KiB random reads and writes at queue depth 8 over all of them, and, side by side in the same run, a
 * forced GC with the sliced settings, one with the whole mark in one slice, and a window without GC.
 *
 * <p>Writeback is stopped for the whole experiment: with it, the front end's dirty data would be written to the
 * backing memory device, whose 64 KiB pages would turn each random 4 KiB write into 64 KiB of heap; GC latency
 * is about the mark, and the writeback has its own benchmark.
 *
 * <p>Thread rule: {@link #run} on the benchmark's main thread; it drives the loop through {@link LoopAwait}.
 */
final class GcLatencyExperiment {
    /** Longest any single loop call may take before the benchmark declares a deadlock. */
    private static final long CALL_TIMEOUT_SECONDS = 600;
    private static final int EXTENT_SECTORS = RandomIoWorkload.BLOCK_BYTES / 512;
    /** Most index leaves an "unsliced" mark can cover in its one slice ({@link GcConfig}'s bound). */
    private static final int ONE_SLICE_NODES = 1_000_000;

    /**
     * @param extents extents prefilled into the index (at least 10 million for the full run)
     * @param depth front-end queue depth
     * @param readPercent share of front-end reads
     * @param warmupMs front-end time before the first measurement (JIT)
     * @param noGcWindowMs length of the window measured without GC
     * @param rounds how many times each mode is measured, one row per mode and round (noise shows as spread)
     * @param sliced the GC settings of the {@code sliced} mode
     */
    record Settings(long extents, int depth, int readPercent, long warmupMs, long noGcWindowMs, int rounds,
                    GcConfig sliced, long seed) {
    }

    /** One measured mode: the row, its latency timeline and GC statistics. */
    record Measurement(GcBenchRow row, LatencyTimeline timeline, long slices, long nodes) {
    }

    private final Settings settings;
    private final Consumer<String> progress;

    GcLatencyExperiment(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /** Runs the experiment; measurements in the order no-gc, unsliced, sliced, repeated {@code rounds} times. */
    List<Measurement> run() {
        long dataBytes = settings.extents() * RandomIoWorkload.BLOCK_BYTES;
        long cacheBytes = roundUpMiB(dataBytes / 7 * 10) + (256L << 20); // 70 % full: no eviction, no moving GC
        long backingBytes = roundUpMiB(dataBytes) + (64L << 20);
        List<Measurement> measurements = new ArrayList<>();
        try (RealLoop loop = new RealLoop("bench-gc"); JvmPauseLog pauses = new JvmPauseLog()) {
            MemoryDevice cache = new MemoryDevice(loop, cacheBytes, 512);
            MemoryDevice backing = new MemoryDevice(loop, backingBytes, 512);
            List<BackingSpec> backings = List.of(new BackingSpec("bench", backing));
            CacheSetOptions options = CacheSetOptions.defaults();
            Outcome<Void> formatted = LoopAwait.call(loop, CALL_TIMEOUT_SECONDS, done -> CacheSet.format(loop, cache,
                    backings, options, new Prng(settings.seed()), fraction -> { }, done));
            Checks.check(formatted.error() == null, "format failed: %s", formatted.error());
            Outcome<CacheSet> opened = LoopAwait.call(loop, CALL_TIMEOUT_SECONDS,
                    done -> CacheSet.open(loop, cache, backings, options, done));
            CacheSet set = opened.orThrow();
            Volume volume = set.volumes().get(0);
            LoopAwait.io(loop, CALL_TIMEOUT_SECONDS, "stopping writeback", set.writebacks().get(0)::stop);
            LoopAwait.run(loop, CALL_TIMEOUT_SECONDS, () -> keepWritesCached(set, "bench"));
            long prefillStartNs = System.nanoTime();
            LoopAwait.run(loop, CALL_TIMEOUT_SECONDS,
                    () -> IndexPrefill.insert(set.space(), volume, 0, settings.extents(), EXTENT_SECTORS));
            progress.accept(String.format("prefilled %,d extents in %.1f s", settings.extents(),
                    (System.nanoTime() - prefillStartNs) / 1e9));
            GarbageCollector gc = set.garbageCollector();
            LoopAwait.io(loop, CALL_TIMEOUT_SECONDS, "settling GC", gc::gc); // the run the prefill triggered
            RandomIoWorkload workload = new RandomIoWorkload(loop, volume, settings.extents(), settings.depth(),
                    settings.readPercent(), new Prng(settings.seed() + 1));
            LoopAwait.run(loop, CALL_TIMEOUT_SECONDS, workload::start);
            sleepMs(settings.warmupMs());
            for (int round = 0; round < settings.rounds(); round++) {
                measurements.add(measureNoGc(loop, set, workload, pauses));
                measurements.add(measureGc(loop, set, workload, pauses, "unsliced", oneSlice(settings.sliced())));
                measurements.add(measureGc(loop, set, workload, pauses, "sliced", settings.sliced()));
            }
            LoopAwait.<Boolean>call(loop, CALL_TIMEOUT_SECONDS, done -> workload.stop(() -> done.accept(true)));
            progress.accept(LoopAwait.<String>call(loop, CALL_TIMEOUT_SECONDS, done -> done.accept(whatRemovedExtents(
                    set, volume))));
            Checks.check(workload.errors() == 0, "front-end errors: %s, first: %s", workload.errors(),
                    workload.firstError());
        }
        return measurements;
    }

    private Measurement measureNoGc(RealLoop loop, CacheSet set, RandomIoWorkload workload, JvmPauseLog pauses) {
        Histogram histogram = new Histogram(RandomIoWorkload.LATENCY_NS_MAX, 3);
        long extents = extents(loop, set);
        long fromMs = JvmPauseLog.uptimeMs();
        LatencyTimeline timeline = new LatencyTimeline(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(10),
                LatencyTimeline.WINDOWS_MAX);
        LoopAwait.run(loop, CALL_TIMEOUT_SECONDS, () -> {
            workload.timeline(timeline);
            workload.recordInto(histogram);
        });
        sleepMs(settings.noGcWindowMs());
        LoopAwait.run(loop, CALL_TIMEOUT_SECONDS, () -> {
            workload.recordInto(null);
            workload.timeline(null);
        });
        long toMs = JvmPauseLog.uptimeMs();
        return new Measurement(row("no-gc", extents, histogram, null, pauses.pauseMsMax(fromMs, toMs)), timeline, 0,
                0);
    }

    private Measurement measureGc(RealLoop loop, CacheSet set, RandomIoWorkload workload, JvmPauseLog pauses,
                                  String mode, GcConfig config) {
        Histogram histogram = new Histogram(RandomIoWorkload.LATENCY_NS_MAX, 3);
        long extents = extents(loop, set);
        sleepMs(settings.noGcWindowMs() / 4); // a gap, so that the GC interval the pacing sees is not zero
        long fromMs = JvmPauseLog.uptimeMs();
        GarbageCollector gc = set.garbageCollector();
        long[] durationNs = new long[1];
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long loopCpuStartNs = threads.getThreadCpuTime(loop.thread().threadId());
        LatencyTimeline timeline = new LatencyTimeline(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(10),
                LatencyTimeline.WINDOWS_MAX);
        LoopAwait.<Boolean>call(loop, CALL_TIMEOUT_SECONDS, done -> {
            gc.setConfig(config);
            workload.timeline(timeline);
            workload.recordInto(histogram);
            long startNs = loop.nowNs();
            gc.gc(result -> {
                durationNs[0] = loop.nowNs() - startNs;
                Checks.check(result.ok(), "GC failed: %s", result);
                // Requests in flight now overlapped the GC: they count as "during GC" too.
                workload.finishRecording(() -> done.accept(true));
            });
        });
        long toMs = JvmPauseLog.uptimeMs();
        long loopCpuNs = threads.getThreadCpuTime(loop.thread().threadId()) - loopCpuStartNs;
        long slices = gc.stats().slicesLast();
        long nodes = gc.stats().nodesLast();
        progress.accept(String.format("%s GC: %.0f ms (mark work %.0f ms, sleeps %.0f ms, loop thread CPU %.0f ms), "
                + "%,d slices over %,d index leaves, %,d requests during it", mode, durationNs[0] / 1e6,
                gc.stats().markWorkNsLast() / 1e6, gc.stats().markSleepNsLast() / 1e6, loopCpuNs / 1e6, slices, nodes,
                histogram.getTotalCount()));
        return new Measurement(row(mode, extents, histogram, durationNs[0] / 1e6, pauses.pauseMsMax(fromMs, toMs)),
                timeline, slices, nodes);
    }

    /**
     * Turns the congestion bypass and the occupancy cutoffs off: a loaded machine's request latency alone passes
     * bcache's thresholds, and writes sent around the cache would remove extents, so the index would no longer hold
     * the size measured (GcBenchTest saw 18,737 of 20,000 extents at load 17). The experiment measures GC, not
     * bypass. The cutoffs too since 2026-12-02: with writeback stopped, random 4 KiB writes leave dirty blocks in
     * ever more buckets (9–21 % in use at the end of a quick tiny run, more the longer a loaded run lasts), and the
     * throttle that had slowed them from 30 % in use now paces by dirty data; GcBenchTest saw 18,493 of 20,000 once
     * in a loaded run, the likely cause though not caught (the run's log now says what removed extents). The cache
     * is sized so that the run's writes fit in it.
     */
    private static void keepWritesCached(CacheSet set, String volume) {
        set.knobs().find("volume." + volume + ".congested_read_threshold_us").set("0");
        set.knobs().find("volume." + volume + ".congested_write_threshold_us").set("0");
        set.knobs().find("volume." + volume + ".cutoff_writeback_sync_percent").set("100");
        set.knobs().find("volume." + volume + ".cutoff_writeback_percent").set("100");
    }

    /**
     * What could have taken extents out of the index during the run (GcBenchTest asserts the index keeps its size;
     * it failed once on 2026-12-02 with 18,493 of 20,000 and no cause on record): writes sent around the cache by
     * reason, evicted buckets and the stale keys GC dropped.
     */
    private static String whatRemovedExtents(CacheSet set, Volume volume) {
        VolumeStats stats = volume.stats();
        return String.format("extents now %,d; sectors around the cache: sequential %d, congested %d, occupancy %d, "
                + "no room %d; buckets evicted %d; stale keys dropped by GC %d; in use %.1f %%",
                volume.index().extents().extentCount(), stats.sequentialBypassedSectors(),
                stats.congestedBypassedSectors(), stats.occupancyBypassedSectors(), stats.noRoomBypassedSectors(),
                set.space().allocator().bucketsEvicted(), set.garbageCollector().stats().staleKeysDropped(),
                volume.cacheInUsePercent());
    }

    private static long extents(RealLoop loop, CacheSet set) {
        return LoopAwait.<Long>call(loop, CALL_TIMEOUT_SECONDS,
                done -> done.accept((long) set.volumes().get(0).index().extents().extentCount()));
    }

    private static GcBenchRow row(String mode, long extents, Histogram latency, Double gcDurationMs, long pauseMs) {
        return new GcBenchRow("gc-latency", mode, extents, latency.getValueAtPercentile(50) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getValueAtPercentile(99.9) / 1e3,
                latency.getMaxValue() / 1e3, gcDurationMs, (double) pauseMs, null, null, null);
    }

    /**
     * The same settings with the whole mark in one slice: no slicing, so no sleeping either, and no bound on a
     * slice's measured cost (which would cut the one slice short).
     */
    static GcConfig oneSlice(GcConfig sliced) {
        return sliced.withPacing(ONE_SLICE_NODES, sliced.sliceSleepNs(), 0, sliced.durationPercentMax());
    }

    private static long roundUpMiB(long bytes) {
        long mib = 1L << 20;
        return (bytes + mib - 1) / mib * mib;
    }

    /** The benchmark's main thread waits out a measuring window (real time is what is measured here). */
    private static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

package io.blockcache.bench;

import static io.blockcache.loop.Checks.check;
import io.blockcache.device.BlockDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.SsdConfig;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A full cache in simulated time: 4 KiB random writes at queue depth 8 over a span several
 * times the cache, until 3x the cache size is written, onto a simulated SSD cache over the default HDD model.
 * Checks that it never deadlocks (the simulated clock keeps moving and every request is answered), that no
 * bucket with dirty sectors is ever evicted ({@link DirtyEvictionWatch}), and that every block reads back its
 * newest acknowledged write. Reports the steady-state front-end throughput (after the first cache size is
 * written) against the HDD's bandwidth for LBA-sorted writes of the same blocks, and the latency distribution
 * in that steady state.
 *
 * <p>Thread rule: runs on the caller's thread, which drives the {@link SimLoop}.
 */
final class FullCacheExperiment {
    /** The run fails as a deadlock if it needs more simulated time than this. */
    static final long SIMULATED_NS_MAX = TimeUnit.HOURS.toNanos(10);
    /**
     * The default 7200 rpm HDD with its volatile write cache off: with it on, the 256 MiB cache would absorb
     * every write of a span this small and make the slow disk look fast (each FLUSH then pays for it at once).
     */
    static final HddConfig HDD = HddConfig.defaults().withWriteCache(false);
    /** Throughput timeline resolution, simulated time. */
    static final long SAMPLE_NS = TimeUnit.SECONDS.toNanos(1);

    /**
     * @param cacheBytes the cache device's size
     * @param bucketSizeBytes the cache's bucket size
     * @param spanFactor the written span is this many times the cache
     * @param writtenFactor the run writes this many times the cache (3 in {@code bench gc})
     */
    record Settings(long cacheBytes, int bucketSizeBytes, int spanFactor, int writtenFactor, int depth, long seed) {
    }

    /** The row and the throughput over simulated time (x seconds, y MiB/s). */
    record Result(GcBenchRow row, Series throughput, long evictions, long bypassedSectors, long lostBlocks,
                  double simulatedSeconds, long gcRuns) {
    }

    private final Settings settings;
    private final Consumer<String> progress;

    FullCacheExperiment(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    Result run() {
        long spanBlocks = settings.cacheBytes() * settings.spanFactor() / RandomIoWorkload.BLOCK_BYTES;
        long cacheBlocks = settings.cacheBytes() / RandomIoWorkload.BLOCK_BYTES;
        double sortedMiBPerSecond = SortedWriteBandwidth.mibPerSecond(l -> new HddModel(l, HDD),
                spanBlocks, (int) Math.min(cacheBlocks, spanBlocks), settings.seed() + 7);
        SimLoop loop = new SimLoop();
        BlockDevice cache = new SsdModel(loop, ssd(settings.cacheBytes()));
        BlockDevice backing = new HddModel(loop, HDD);
        List<BackingSpec> backings = List.of(new BackingSpec("full", backing));
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(settings.bucketSizeBytes());
        Outcome<?>[] formatted = new Outcome<?>[1];
        CacheSet.format(loop, cache, backings, options, new Prng(settings.seed()), f -> { }, r -> formatted[0] = r);
        loop.runUntil(() -> formatted[0] != null);
        Checks.check(formatted[0] != null && formatted[0].error() == null, "format failed: %s", formatted[0]);
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] opened = new Outcome[1];
        CacheSet.open(loop, cache, backings, options, r -> opened[0] = r);
        loop.runUntil(() -> opened[0] != null);
        CacheSet set = opened[0].orThrow();
        Volume volume = set.volumes().get(0);
        DirtyEvictionWatch watch = new DirtyEvictionWatch(set.space().table(), set.space().allocator());
        RandomIoWorkload workload = new RandomIoWorkload(loop, volume, spanBlocks, settings.depth(), 0,
                new Prng(settings.seed() + 1));
        Histogram steady = new Histogram(RandomIoWorkload.LATENCY_NS_MAX, 3);
        Series throughput = new Series("front-end writes");
        long goalWrites = settings.writtenFactor() * cacheBlocks;
        workload.start();
        long steadyStartNs = -1;
        long steadyStartWrites = 0;
        long nextSampleNs = loop.nowNs() + SAMPLE_NS;
        long writesAtSample = 0;
        while (workload.writesCompleted() < goalWrites) {
            Checks.check(loop.step(), "deadlock: no event pending after %s of %s writes", workload.writesCompleted(),
                    goalWrites);
            watch.afterEvent();
            Checks.check(loop.nowNs() < SIMULATED_NS_MAX, "deadlock: %s of %s writes after %s s simulated",
                    workload.writesCompleted(), goalWrites, loop.nowNs() / 1e9);
            if (steadyStartNs < 0 && workload.writesCompleted() >= cacheBlocks) {
                steadyStartNs = loop.nowNs();
                steadyStartWrites = workload.writesCompleted();
                workload.recordInto(steady);
            }
            if (loop.nowNs() >= nextSampleNs) {
                long writes = workload.writesCompleted();
                throughput.add(nextSampleNs / 1e9, (writes - writesAtSample) * RandomIoWorkload.BLOCK_BYTES
                        / (double) (1 << 20) / (SAMPLE_NS / 1e9));
                writesAtSample = writes;
                nextSampleNs += SAMPLE_NS;
            }
        }
        double steadySeconds = (loop.nowNs() - steadyStartNs) / 1e9;
        double steadyMiBPerSecond = (workload.writesCompleted() - steadyStartWrites) * RandomIoWorkload.BLOCK_BYTES
                / (double) (1 << 20) / steadySeconds;
        double simulatedSeconds = loop.nowNs() / 1e9;
        boolean[] stopped = {false};
        workload.stop(() -> stopped[0] = true);
        while (!stopped[0]) {
            Checks.check(loop.step(), "deadlock: requests in flight never completed");
            watch.afterEvent();
        }
        Checks.check(workload.errors() == 0, "front-end errors: %s, first: %s", workload.errors(),
                workload.firstError());
        long lost = verify(loop, volume, workload, spanBlocks, watch);
        progress.accept(String.format("full cache: %.0f s simulated, %,d evictions, %,d dirty evictions, "
                + "%,d sectors around the cache, %,d GC runs, %,d blocks lost", simulatedSeconds, watch.evictions(),
                watch.dirtyEvictions(), volume.stats().writeBypassedSectors(), set.garbageCollector().stats().runs(),
                lost));
        Checks.check(lost == 0, "%s blocks did not read back their newest acknowledged write", lost);
        GcBenchRow row = new GcBenchRow("full-cache", "sliced", null, steady.getValueAtPercentile(50) / 1e3,
                steady.getValueAtPercentile(99) / 1e3, steady.getValueAtPercentile(99.9) / 1e3,
                steady.getMaxValue() / 1e3, null, null, steadyMiBPerSecond, sortedMiBPerSecond,
                watch.dirtyEvictions());
        return new Result(row, throughput, watch.evictions(), volume.stats().writeBypassedSectors(), lost,
                simulatedSeconds, set.garbageCollector().stats().runs());
    }

    /** Reads every written block back; returns how many do not carry their newest acknowledged tag. */
    private static long verify(SimLoop loop, Volume volume, RandomIoWorkload workload, long spanBlocks,
                               DirtyEvictionWatch watch) {
        long lost = 0;
        ByteBuffer buffer = ByteBuffer.allocate(RandomIoWorkload.BLOCK_BYTES);
        for (long block = 0; block < spanBlocks; block++) {
            int version = workload.version(block);
            if (version == 0) {
                continue;
            }
            buffer.clear();
            boolean[] done = {false};
            volume.read(block * RandomIoWorkload.BLOCK_BYTES, buffer, result -> {
                Checks.check(result.ok(), "read-back failed: %s", result);
                done[0] = true;
            });
            while (!done[0]) {
                Checks.check(loop.step(), "deadlock: read-back of block %s never completed", block);
                watch.afterEvent();
            }
            if (buffer.getLong(0) != RandomIoWorkload.tag(block, version)) {
                lost++;
            }
        }
        return lost;
    }

    private static SsdConfig ssd(long bytes) {
        SsdConfig d = SsdConfig.defaults();
        return new SsdConfig(bytes, d.readLatencyNs(), d.writeLatencyNs(), d.channelCount(), d.readBytesPerSecond(),
                d.writeBytesPerSecond(), d.writeCacheBytes(), d.flushNs());
    }
}

package io.blockcache.bench;

import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.sim.ObjectStoreConfig;
import io.blockcache.sim.ObjectStoreModel;
import io.blockcache.writeback.WritebackCounters;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackSettings;
import java.util.TreeMap;

/**
 * One idle drain onto the object-store model (docs/BENCHMARKS.md "Writeback: object store"): an optional set written
 * and drained first (so it stays in the cache as clean data), then the dirty set written with writeback stopped, the
 * front end quiet long enough for every policy to call it idle, and writeback timed until nothing is dirty. Besides
 * the time to clean it measures the steady upload rate: bytes the store took by PUTs while the drain went from 10 %
 * to 90 % of the dirty bytes cleaned, over that time (the first PUTs' latency and the slowest last PUT, which any
 * uploader pays once, stay out of it).
 */
final class ObjectStoreRun {
    /** Where the steady window starts and ends, as fractions of the dirty bytes cleaned. */
    static final double WINDOW_START = 0.1;
    static final double WINDOW_END = 0.9;
    /** Longer than the congestion monitor keeps a sample (1 s). */
    static final long CONGESTION_MEMORY_NS = 2_000_000_000L;

    /** What one drain measured, and the chunk math of its ideal. */
    record Result(long dirtyBytes, long elapsedNs, double steadyPutBytesPerSecond, long puts, long gets,
                  long putBytes, long getBytes, long chunksWhole, long chunksPartial, long chunksInFlightPeak,
                  Ideal ideal) {
        double mibPerSecond() {
            return dirtyBytes / (1024.0 * 1024.0) / (elapsedNs / 1e9);
        }
    }

    /**
     * The chunk math: every chunk the dirty set touches is PUT once, whole; a chunk that the dirty and clean cached
     * data do not cover is first fetched by a GET. The ideal time is the larger of the two transfers at the store's
     * caps (PUTs and GETs overlap), and the ideal upload rate is the upload cap.
     */
    record Ideal(long chunks, long chunksToFetch, double seconds, double uploadBytesPerSecond) {
        static Ideal of(ObjectStoreConfig store, long volumeOffsetBytes, Extents dirty, Extents clean) {
            TreeMap<Long, Long> dirtyBytesPerChunk = new TreeMap<>();
            TreeMap<Long, Long> coveredBytesPerChunk = new TreeMap<>();
            add(store, volumeOffsetBytes, dirty, dirtyBytesPerChunk);
            add(store, volumeOffsetBytes, dirty, coveredBytesPerChunk);
            if (clean != null) {
                add(store, volumeOffsetBytes, clean, coveredBytesPerChunk);
            }
            long toFetch = dirtyBytesPerChunk.keySet().stream()
                    .filter(c -> coveredBytesPerChunk.get(c) < store.chunkBytes()).count();
            long chunks = dirtyBytesPerChunk.size();
            double seconds = Math.max((double) chunks * store.chunkBytes() / store.uploadBytesPerSecond(),
                    (double) toFetch * store.chunkBytes() / store.downloadBytesPerSecond());
            return new Ideal(chunks, toFetch, seconds, store.uploadBytesPerSecond());
        }

        private static void add(ObjectStoreConfig store, long offsetBytes, Extents set, TreeMap<Long, Long> perChunk) {
            for (int i = 0; i < set.count(); i++) {
                long start = offsetBytes + set.startBytes()[i];
                long end = start + set.lengthBytes()[i];
                for (long at = start; at < end; ) {
                    long chunk = at / store.chunkBytes();
                    long chunkEnd = Math.min(end, (chunk + 1) * store.chunkBytes());
                    perChunk.merge(chunk, chunkEnd - at, Long::sum);
                    at = chunkEnd;
                }
            }
        }
    }

    private ObjectStoreRun() {
    }

    /**
     * Drains {@code dirty} under {@code settings} onto a {@code store} model behind a {@code cacheBytes} SSD, after
     * writing and draining {@code clean} (null: none); both sets lie at {@code offsetBytes} in the volume; the
     * store's latencies come from {@code seed}.
     */
    static Result run(long cacheBytes, ObjectStoreConfig store, WritebackSettings settings, Extents clean,
                      Extents dirty, long offsetBytes, long seed) {
        return run(cacheBytes, store, settings, clean, dirty, offsetBytes, seed, 0, BenchRig.JOURNALED_LOG_BYTES);
    }

    /**
     * As {@link #run(long, ObjectStoreConfig, WritebackSettings, Extents, Extents, long, long)}, the dirty set written
     * by an application that sends a FLUSH after every {@code flushEveryWrites} writes (0: never), so that it falls
     * into epochs for {@code ordering=epochs} and {@code journaled} (whose rig gets a backing log of {@code logBytes}).
     */
    static Result run(long cacheBytes, ObjectStoreConfig store, WritebackSettings settings, Extents clean,
                      Extents dirty, long offsetBytes, long seed, int flushEveryWrites, long logBytes) {
        ObjectStoreModel[] model = new ObjectStoreModel[1];
        boolean journaled = settings.ordering() == WritebackOrdering.JOURNALED;
        BenchRig rig = new BenchRig(cacheBytes, loop -> model[0] = new ObjectStoreModel(loop, store, new Prng(seed)),
                settings.toBuilder().running(false).build(), journaled ? logBytes : 0);
        if (clean != null) {
            FrontEndWriter.writeAll(rig.loop, rig.volume(), offsetBytes, clean, DrainRun.FILL_DEPTH);
            rig.tune(b -> b.running(true));
            rig.runUntil(() -> rig.dirtyBytes() == 0 && rig.writeback().keysInFlight() == 0);
            rig.tune(b -> b.running(false));
            // The drain's cache reads (whole chunks, many at once) leave the cache device looking congested for up
            // to a second (volume.CongestionMonitor), and writes would then go around the cache: let it pass.
            rig.loop.runFor(CONGESTION_MEMORY_NS);
        }
        FrontEndWriter.writeAll(rig.loop, rig.volume(), offsetBytes, dirty, DrainRun.FILL_DEPTH, flushEveryWrites);
        Checks.check(rig.dirtyBytes() == dirty.totalBytes(), "dirty %s != written %s (%s sectors bypassed)",
                rig.dirtyBytes(), dirty.totalBytes(), rig.volume().stats().writeBypassedSectors());
        rig.loop.runFor(DrainRun.QUIET_BEFORE_NS);
        ObjectStoreModel s = model[0];
        long puts = s.puts();
        long gets = s.gets();
        long putBytes = s.putBytes();
        long getBytes = s.getBytes();
        WritebackCounters counters = rig.writeback().counters();
        long whole = counters.chunksWhole();
        long partial = counters.chunksPartial();
        long startNs = rig.loop.nowNs();
        long total = dirty.totalBytes();
        long[] window = {-1, -1, 0, 0}; // start ns, end ns, stored bytes at each
        rig.tune(b -> b.running(true));
        rig.runUntil(() -> {
            long cleaned = total - rig.dirtyBytes();
            if (window[0] < 0 && cleaned >= total * WINDOW_START) {
                window[0] = rig.loop.nowNs();
                window[2] = s.storedBytes();
            }
            if (window[1] < 0 && cleaned >= total * WINDOW_END) {
                window[1] = rig.loop.nowNs();
                window[3] = s.storedBytes();
            }
            return rig.dirtyBytes() == 0 && rig.writeback().keysInFlight() == 0;
        });
        double steady = window[1] > window[0] ? (window[3] - window[2]) * 1e9 / (window[1] - window[0]) : Double.NaN;
        long volumeOffset = rig.volume().backingOffsetBytes(0) + offsetBytes;
        return new Result(total, rig.loop.nowNs() - startNs, steady, s.puts() - puts, s.gets() - gets,
                s.putBytes() - putBytes, s.getBytes() - getBytes, counters.chunksWhole() - whole,
                counters.chunksPartial() - partial, counters.chunksInFlightPeak(),
                Ideal.of(store, volumeOffset, dirty, clean));
    }
}

package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceOp;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.SsdConfig;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Replays a {@link BlockTrace} through the real engine in simulated time: a cache set formatted on a simulated SSD
 * sized so that its usable data space is about the capacity asked, over a backing disk of fixed latency that
 * stores nothing ({@link TraceBacking}), one volume in
 * write-through mode (a write installs a clean copy, as a write-allocating classic policy does; dirty data and its
 * writeback are measured by {@code bench writeback}). Requests go one at a time (queue depth 1, no think time), so
 * the backing device's read bytes during a request are exactly that request's misses: the engine's own bypass
 * rules, read admission, bucket allocation, GC and eviction decide, not a model of them.
 *
 * <p>Thread rule: the caller's thread drives the {@link SimLoop}.
 */
final class EngineReplay {
    /** Bucket size of the replayed cache: the smallest the format allows, so small caches still have many buckets. */
    static final int BUCKET_BYTES = 128 << 10;
    /** The backing device's size: 16 TiB, past any trace's offsets (nothing of it is stored). */
    static final long BACKING_BYTES = 16L << 40;
    /** The replay flushes the volume after this many requests, as a client does now and then. */
    static final int FLUSH_EVERY_REQUESTS = 1000;
    /** A replay fails as a deadlock if one request needs more simulated time than this. */
    static final long REQUEST_NS_MAX = TimeUnit.MINUTES.toNanos(5);

    /**
     * What one replay measured. Bytes are whole 4 KiB blocks; {@code liveFraction} is the live data at the end over
     * the usable capacity (the rest is free buckets and stale copies).
     */
    record Result(long usableBlocks, long readRequests, long readRequestMisses, long readBytes, long readMissBytes,
                  long clientWriteBytes, long cacheWriteBytes, long bucketsEvicted, long admissionMemoryBytes,
                  long promotedBlocks, double liveFraction, double simulatedSeconds) {
        double requestMissRatio() {
            return readRequests == 0 ? 0 : readRequestMisses / (double) readRequests;
        }

        double byteMissRatio() {
            return readBytes == 0 ? 0 : readMissBytes / (double) readBytes;
        }

        /** Bytes written to the cache device ÷ bytes the client wrote; NaN if the client wrote nothing. */
        double writeAmplification() {
            return clientWriteBytes == 0 ? Double.NaN : cacheWriteBytes / (double) clientWriteBytes;
        }
    }

    private EngineReplay() {
    }

    private static void flush(SimLoop loop, Volume volume) {
        boolean[] flushed = {false};
        volume.flush(result -> {
            Checks.check(result.ok(), "flush failed: %s", result);
            flushed[0] = true;
        });
        long deadlineNs = loop.nowNs() + REQUEST_NS_MAX;
        while (!flushed[0]) {
            Checks.check(loop.step(), "deadlock: a flush never completed");
            Checks.check(loop.nowNs() < deadlineNs, "a flush took more than 5 simulated minutes");
        }
    }

    /** The cache device size whose usable data space (data buckets less the checkpoint reserve) is ≥ the target. */
    static long deviceBytesFor(long usableBytesTarget) {
        int wanted = (int) Math.max(1, (usableBytesTarget + BUCKET_BYTES - 1) / BUCKET_BYTES);
        int data = wanted;
        while (data - reserveBuckets(data) < wanted || data < 12) {
            data++;
        }
        int total = data + 4;
        while (total - Math.max(4, Math.min(64, total / 128)) < data) {
            total++;
        }
        return (1L << 20) + (long) total * BUCKET_BYTES;
    }

    /** engine.Geometry's checkpoint reserve (docs/GC.md), repeated here only to size the device. */
    private static int reserveBuckets(int dataBuckets) {
        long bytes = (long) dataBuckets * (BUCKET_BYTES / 4096) * 33 + dataBuckets * 2L;
        return (int) Math.min(dataBuckets / 4, 2 * ((bytes + BUCKET_BYTES - 1) / BUCKET_BYTES) + 2);
    }

    /** Replays {@code trace} on a cache of about {@code usableBytesTarget} usable bytes. */
    static Result run(BlockTrace trace, long usableBytesTarget, long seed, Consumer<CacheSet> configure) {
        SimLoop loop = new SimLoop();
        SsdConfig d = SsdConfig.defaults();
        BlockDevice cache = new SsdModel(loop, new SsdConfig(deviceBytesFor(usableBytesTarget), d.readLatencyNs(),
                d.writeLatencyNs(), d.channelCount(), d.readBytesPerSecond(), d.writeBytesPerSecond(),
                d.writeCacheBytes(), d.flushNs()));
        BlockDevice backing = new TraceBacking(loop, BACKING_BYTES);
        java.util.List<BackingSpec> backings = java.util.List.of(new BackingSpec("trace", backing));
        CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES)
                .withMode(CacheMode.WRITETHROUGH);
        Outcome<?>[] formatted = new Outcome<?>[1];
        CacheSet.format(loop, cache, backings, options, new Prng(seed), f -> { }, r -> formatted[0] = r);
        loop.runUntil(() -> formatted[0] != null);
        Checks.check(formatted[0] != null && formatted[0].error() == null, "format failed: %s", formatted[0]);
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] opened = new Outcome[1];
        CacheSet.open(loop, cache, backings, options, r -> opened[0] = r);
        loop.runUntil(() -> opened[0] != null);
        CacheSet set = opened[0].orThrow();
        boolean[] configured = {false};
        loop.execute(() -> {
            configure.accept(set);
            configured[0] = true;
        });
        loop.runUntil(() -> configured[0]);
        Volume volume = set.volumes().get(0);
        Checks.check(trace.endBlock() * BlockTrace.BLOCK_BYTES <= volume.sizeBytes(),
                "trace reaches block %s, past the volume's %s bytes", trace.endBlock(), volume.sizeBytes());
        int dataBuckets = set.superblock().bucketCount() - set.superblock().journalBuckets();
        long usableBlocks = (long) (dataBuckets - set.space().allocator().metadataReserveBuckets())
                * (BUCKET_BYTES / BlockTrace.BLOCK_BYTES);
        long cacheWritesBefore = cache.counters().submittedSectors(DeviceOp.WRITE);
        ByteBuffer buffer = ByteBuffer.allocateDirect(BlockTrace.Builder.BLOCKS_PER_REQUEST_MAX
                * BlockTrace.BLOCK_BYTES);
        long readRequests = 0;
        long readMisses = 0;
        long readBytes = 0;
        long missBytes = 0;
        long writeBytes = 0;
        boolean[] done = new boolean[1];
        for (int r = 0; r < trace.requests(); r++) {
            int bytes = trace.blockCount(r) * BlockTrace.BLOCK_BYTES;
            long offset = trace.startBlock(r) * BlockTrace.BLOCK_BYTES;
            buffer.clear().limit(bytes);
            done[0] = false;
            long backingReadBefore = backing.counters().submittedSectors(DeviceOp.READ);
            if (trace.isWrite(r)) {
                writeBytes += bytes;
                volume.write(offset, buffer, false, result -> {
                    Checks.check(result.ok(), "write failed: %s", result);
                    done[0] = true;
                });
            } else {
                volume.read(offset, buffer, result -> {
                    Checks.check(result.ok(), "read failed: %s", result);
                    done[0] = true;
                });
            }
            long deadlineNs = loop.nowNs() + REQUEST_NS_MAX;
            while (!done[0]) {
                Checks.check(loop.step(), "deadlock: request %s never completed", r);
                Checks.check(loop.nowNs() < deadlineNs, "request %s took more than 5 simulated minutes", r);
            }
            if (r % FLUSH_EVERY_REQUESTS == FLUSH_EVERY_REQUESTS - 1) {
                flush(loop, volume);
            }
            if (!trace.isWrite(r)) {
                long missed = (backing.counters().submittedSectors(DeviceOp.READ) - backingReadBefore)
                        * BlockDevice.SECTOR_BYTES;
                readRequests++;
                readBytes += bytes;
                missBytes += Math.min(bytes, missed);
                if (missed > 0) {
                    readMisses++;
                }
            }
        }
        long liveSectors = 0;
        for (int b = 0; b < set.space().table().bucketCount(); b++) {
            liveSectors += set.space().table().liveSectors(b);
        }
        long cacheWriteBytes = (cache.counters().submittedSectors(DeviceOp.WRITE) - cacheWritesBefore)
                * BlockDevice.SECTOR_BYTES;
        return new Result(usableBlocks, readRequests, readMisses, readBytes, missBytes, writeBytes, cacheWriteBytes,
                set.space().allocator().bucketsEvicted(), volume.readAdmission().memoryBytes(),
                volume.stats().promotedSectors() / 8, liveSectors / (double) (usableBlocks * 8), loop.nowNs() / 1e9);
    }
}

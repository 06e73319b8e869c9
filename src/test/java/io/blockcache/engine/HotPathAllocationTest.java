package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoCallback;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeStats;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes the loop thread allocates per steady-state 4 KiB request ("hot path without allocation"),
 * measured with the JVM's per-thread allocation counter on a real loop over files, 32 requests in flight.
 * A read hit allocates nothing of its own (its request, timers and pending cache read are reused objects); what
 * is left is the loop's task queue node for each batch of completions, a few bytes per request on average, so
 * the bound is below one 24-byte object per request. A write allocates nothing of its own either (its routed
 * write, cached write, in-flight entry and journal entry are reused, and the journal encodes its insert in place);
 * what is left is amortised over many writes: a bucket opened every 64 writes (256 KiB), a checkpoint of the small
 * test journal now and then (its chunk array is reused; a new 256 KiB one per chunk made every other run measure
 * ~50 B), the moving GC. The best of ten rounds measures 16–21 B, so the bound (64 B) fails on any per-write object
 * of about 48 B or more (the in-flight entry alone was 56 B). A read miss and its fill allocate nothing of their own
 * either (the fill's copy is a pooled direct buffer, its callbacks reused objects); each fill adds an extent, so the
 * index grows, which a hit and an overwrite never make it do ({@code MISS_BYTES_MAX}).
 * Allocation is counted, not timed, so a loaded machine cannot break it; the best round is taken because the JIT's
 * escape analysis removes some allocations only once it has compiled the path, and the amortised costs fall into
 * some rounds and not others.
 */
class HotPathAllocationTest {
    private static final int BLOCKS = 1024;
    private static final int BLOCK_BYTES = 4096;
    private static final int QUEUE_DEPTH = 32;
    private static final int REQUESTS_PER_ROUND = 20_000;
    private static final int ROUNDS = 10;
    private static final long READ_HIT_BYTES_MAX = 24;
    private static final long WRITE_BYTES_MAX = 64;
    /** The miss rounds: the volume's 16 MiB, a new 2 MiB each round (the cache holds all of it). */
    private static final int MISS_ROUNDS = 8;
    private static final int MISS_BLOCKS_PER_ROUND = (int) (FileCacheSet.VOLUME_BYTES / BLOCK_BYTES) / MISS_ROUNDS;
    /**
     * A miss and its fill, measured 139–145 B: unlike a hit or an overwrite, every fill adds an extent, so the
     * index grows (its arrays, amortised), and a bucket opens every 64 fills. Before the fill copy was pooled and
     * the hole's callbacks reused: 4,587 B. The bound fails on any per-miss object of about 56 B or more.
     */
    private static final long MISS_BYTES_MAX = 200;

    @TempDir
    Path dir;

    @Test
    void steadyStateRequestsAllocateLittleOnTheLoopThread() throws Exception {
        // Proves the bound: a regression that allocates per request (a boxed check, an iterator, a list per
        // request) on the read-hit or write path pushes the best round above it.
        try (FileCacheSet files = FileCacheSet.create(dir.resolve("cache"), dir.resolve("backing"))) {
            files.format(1).orThrow();
            CacheSet set = files.openSet().orThrow();
            OnLoop.get(files.loop, () -> {
                set.knobs().find("writeback." + FileCacheSet.EXPORT + ".running").set("false");
                return null;
            });
            Volume volume = set.volume(FileCacheSet.EXPORT);
            long loopThreadId = OnLoop.get(files.loop, () -> Thread.currentThread().threadId());
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            run(files, volume, true); // fills every block: the reads below are all hits
            long readBest = Long.MAX_VALUE;
            long writeBest = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                long before = threads.getThreadAllocatedBytes(loopThreadId);
                run(files, volume, false);
                long between = threads.getThreadAllocatedBytes(loopThreadId);
                run(files, volume, true);
                long after = threads.getThreadAllocatedBytes(loopThreadId);
                readBest = Math.min(readBest, (between - before) / REQUESTS_PER_ROUND);
                writeBest = Math.min(writeBest, (after - between) / REQUESTS_PER_ROUND);
            }
            System.out.printf("loop-thread allocation: read hit %d B/request, write %d B/request%n",
                    readBest, writeBest);
            assertThat(readBest).as("bytes per 4 KiB read hit").isLessThanOrEqualTo(READ_HIT_BYTES_MAX);
            assertThat(writeBest).as("bytes per 4 KiB write").isLessThanOrEqualTo(WRITE_BYTES_MAX);
            assertThat(volume.stats().checksumErrors()).isZero();
        }
    }

    @Test
    void steadyStateReadMissesAllocateLittleOnTheLoopThread() throws Exception {
        // Proves the bound for the miss path: a 4 KiB read of data that is not cached reads the backing device and
        // fills the cache. Before its fill copy came from a pool it allocated its 4 KiB copy, a lambda for the
        // backing read, a view of the buffer and a lambda for the fill's cache write. Each round
        // reads blocks no round read before, so every read is a miss and a fill, and all of them fit in the cache.
        try (FileCacheSet files = FileCacheSet.create(dir.resolve("cache"), dir.resolve("backing"))) {
            files.format(1).orThrow();
            CacheSet set = files.openSet().orThrow();
            OnLoop.get(files.loop, () -> { // no congestion bypass: on a loaded machine it skipped whole rounds of fills
                set.knobs().find("volume." + FileCacheSet.EXPORT + ".congested_read_threshold_us").set("0");
                set.knobs().find("volume." + FileCacheSet.EXPORT + ".congested_write_threshold_us").set("0");
                return null;
            });
            Volume volume = set.volume(FileCacheSet.EXPORT);
            long loopThreadId = OnLoop.get(files.loop, () -> Thread.currentThread().threadId());
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long missBest = Long.MAX_VALUE;
            for (int round = 0; round < MISS_ROUNDS; round++) {
                long sectors = (long) MISS_BLOCKS_PER_ROUND * BLOCK_BYTES / 512;
                long before = threads.getThreadAllocatedBytes(loopThreadId);
                run(files, volume, false, (long) round * MISS_BLOCKS_PER_ROUND, MISS_BLOCKS_PER_ROUND,
                        MISS_BLOCKS_PER_ROUND);
                long after = threads.getThreadAllocatedBytes(loopThreadId);
                // A read is answered before its fill's cache write completes: wait for the round's last fills.
                awaitFills(files, volume, (round + 1) * sectors);
                VolumeStats stats = volume.stats();
                assertThat(stats.fillSectors()).as("sectors filled after round %d (skipped %d, no room %d)", round,
                        stats.fillsSkippedSectors(), stats.fillsNoRoomSectors()).isEqualTo((round + 1) * sectors);
                missBest = Math.min(missBest, (after - before) / MISS_BLOCKS_PER_ROUND);
            }
            System.out.printf("loop-thread allocation: read miss with fill %d B/request%n", missBest);
            assertThat(missBest).as("bytes per 4 KiB read miss and its fill").isLessThanOrEqualTo(MISS_BYTES_MAX);
            assertThat(volume.stats().readMissSectors()).isEqualTo(FileCacheSet.VOLUME_BYTES / 512);
            assertThat(volume.stats().checksumErrors()).isZero();
        }
    }

    /** Waits until the fills that ended reach {@code sectors} ({@link #fillsEnded}), or the test timeout passes. */
    private static long awaitFills(FileCacheSet files, Volume volume, long sectors) {
        long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(OnLoop.TIMEOUT_SECONDS);
        long ended = fillsEnded(files, volume);
        while (ended < sectors && System.nanoTime() < deadlineNs) {
            Thread.onSpinWait();
            ended = fillsEnded(files, volume);
        }
        return ended;
    }

    /** Fills that ended: filled, skipped by the bypass policy, or dropped for want of room. */
    private static long fillsEnded(FileCacheSet files, Volume volume) {
        return OnLoop.get(files.loop, () -> volume.stats().fillSectors() + volume.stats().fillsSkippedSectors()
                + volume.stats().fillsNoRoomSectors());
    }

    /** Runs one round of 4 KiB requests over the first {@link #BLOCKS} blocks, {@link #QUEUE_DEPTH} at a time. */
    private static void run(FileCacheSet files, Volume volume, boolean write) throws InterruptedException {
        run(files, volume, write, 0, BLOCKS, REQUESTS_PER_ROUND);
    }

    /**
     * Runs {@code requests} 4 KiB requests over {@code blocks} blocks from {@code firstBlock}, each block once per
     * {@code blocks} requests, {@link #QUEUE_DEPTH} at a time, from the loop.
     */
    private static void run(FileCacheSet files, Volume volume, boolean write, long firstBlock, int blocks,
                            int requests) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(requests);
        AtomicLong next = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        for (int slot = 0; slot < QUEUE_DEPTH; slot++) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(BLOCK_BYTES);
            Runnable[] submit = new Runnable[1];
            IoCallback callback = result -> {
                if (!result.ok()) {
                    failure.compareAndSet(null, result.toString());
                }
                done.countDown();
                submit[0].run();
            };
            submit[0] = () -> {
                long request = next.getAndIncrement();
                if (request >= requests) {
                    return;
                }
                long offsetBytes = (firstBlock + request * 7919 % blocks) * BLOCK_BYTES; // a prime stride: scattered
                buffer.clear();
                if (write) {
                    volume.write(offsetBytes, buffer, false, callback);
                } else {
                    volume.read(offsetBytes, buffer, callback);
                }
            };
            files.loop.execute(submit[0]);
        }
        assertThat(done.await(OnLoop.TIMEOUT_SECONDS * 3, TimeUnit.SECONDS)).as("round finished").isTrue();
        assertThat(failure.get()).as("first failed request").isNull();
    }
}

package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketState;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.Prng;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import io.blockcache.sim.SpaceBudget;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A cache device on a file system that runs out of space (a sparse cache file on a small tmpfs, found 2026-12-07):
 * writes that need new blocks get ENOSPC from the simulator's {@link SpaceBudget}, then the space comes back. Reads,
 * writes, flushes and drains run throughout against a plain model of the volume.
 */
class DiskFullTest {
    private static final int SECTOR_BYTES = 512;
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    /** Operations while space is short: enough to fill, seal and release every bucket a few times over. */
    private static final int FULL_OPERATIONS = 250;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 24);
    }

    private final SimCacheSet sim = new SimCacheSet();
    private FaultyDevice cache;
    private byte[] model;
    private BitSet known;
    private Prng prng;

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aFullDiskNeverStrandsTheCacheAndFlushedDataSurvives(long seed) {
        // Proves that ENOSPC on the cache device, with reads, writes, flushes and drains going on, keeps metadata
        // buckets within the checkpoint reserve, that the free buckets recover once space returns, that a clean stop
        // succeeds, and that every acknowledged write reads back after a reopen.
        prng = new Prng(seed);
        cache = new FaultyDevice(sim.cache, sim.loop, FaultPlan.none(), new Prng(seed));
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, cache, sim.backings(),
                SimCacheSet.OPTIONS, new Prng(seed), fraction -> { }, done));
        assertThat(formatted.error()).as("format").isNull();
        Outcome<CacheSet> opened = sim.open(cache, sim.backings());
        assertThat(opened.error()).as("open").isNull();
        CacheSet set = opened.value();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        model = new byte[Math.toIntExact(volume.sizeBytes())];
        known = new BitSet();
        known.set(0, model.length / SECTOR_BYTES); // the backing starts as zeroes
        BucketAllocator allocator = set.space().allocator();
        int reserve = allocator.metadataReserveBuckets();

        runOperations(set, volume, prng.nextInt(40), reserve, seed);
        cache.space().setAllocatedBytesMax(cache.space().allocatedBytes() + prng.nextInt(8) * 64L * 1024);
        runOperations(set, volume, FULL_OPERATIONS, reserve, seed);
        assertThat(cache.space().refusedWrites()).as("seed %s: the disk was full", seed).isPositive();

        cache.space().setAllocatedBytesMax(SpaceBudget.UNLIMITED); // the operator freed space
        sim.loop.runFor(5 * SECOND_NS); // nothing but the cache's own timers: it must recover by itself
        assertThat(allocator.releaseRefusedBuckets()).as("seed %s: releases still refused", seed).isZero();
        assertThat(set.buckets(BucketState.METADATA)).as("seed %s: metadata buckets", seed)
                .isLessThanOrEqualTo(reserve);
        assertThat(sim.io(done -> set.drain(SimCacheSet.EXPORT, progress -> { }, done))).isEqualTo(IoResult.OK);
        assertThat(sim.io(set::gc)).isEqualTo(IoResult.OK);
        sim.loop.runFor(SECOND_NS);
        assertThat(allocator.freeBuckets() + allocator.reusePendingBuckets())
                .as("seed %s: free buckets after space returned", seed).isGreaterThan(reserve);
        long waits = allocator.allocationFailures();
        write(volume, 0, 64 << 10);
        assertThat(allocator.allocationFailures()).as("seed %s: a write after recovery is cached", seed)
                .isEqualTo(waits);

        assertThat(sim.io(set::shutdown)).as("seed %s: clean stop", seed).isEqualTo(IoResult.OK);
        CacheSet reopened = sim.openOk();
        verifyAll(reopened.volume(SimCacheSet.EXPORT), seed);
    }

    @org.junit.jupiter.api.Test
    void aCheckpointThatFailsAgainAndAgainTakesNoNewBucket() {
        // Proves a checkpoint failing on a full device writes its next attempt into the buckets it already has
        // (before 2026-12-07 each attempt took a fresh bucket whose release the generation guard refused), and that
        // the checkpoint succeeds in those buckets once space returns.
        cache = new FaultyDevice(sim.cache, sim.loop, FaultPlan.none(), new Prng(1));
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, cache, sim.backings(),
                SimCacheSet.OPTIONS, new Prng(1), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        CacheSet set = sim.open(cache, sim.backings()).orThrow();
        sim.writeOk(set.volume(SimCacheSet.EXPORT), 0, SimCacheSet.pattern(3, 256 << 10));
        cache.space().setAllocatedBytesMax(cache.space().allocatedBytes()); // not one more block
        assertThat(sim.io(set::checkpoint).status()).isEqualTo(IoStatus.NO_SPACE);
        int metadata = set.buckets(BucketState.METADATA);
        int free = set.space().allocator().freeBuckets();
        for (int attempt = 0; attempt < 20; attempt++) {
            assertThat(sim.io(set::checkpoint).ok()).isFalse();
        }
        assertThat(set.buckets(BucketState.METADATA)).isEqualTo(metadata);
        assertThat(set.space().allocator().freeBuckets()).isEqualTo(free);
        cache.space().setAllocatedBytesMax(SpaceBudget.UNLIMITED);
        assertThat(sim.io(set::checkpoint)).isEqualTo(IoResult.OK);
        assertThat(set.buckets(BucketState.METADATA)).isEqualTo(metadata);
    }

    private void runOperations(CacheSet set, Volume volume, int count, int reserve, long seed) {
        for (int i = 0; i < count; i++) {
            int kind = prng.nextInt(100);
            long offsetBytes = prng.nextLong(model.length / 4096) * 4096;
            int lengthBytes = (int) Math.min(model.length - offsetBytes, (1 + prng.nextInt(32)) * 4096L);
            if (kind < 45) {
                write(volume, offsetBytes, lengthBytes);
            } else if (kind < 85) {
                read(volume, offsetBytes, lengthBytes, seed, i);
            } else if (kind < 93) {
                sim.io(volume::flush); // may fail while the disk is full; acknowledged writes are in the model already
            } else if (kind < 96) {
                sim.io(done -> set.drain(SimCacheSet.EXPORT, progress -> { }, done));
            } else {
                sim.loop.runFor(SECOND_NS); // journal delay, GC and checkpoint retries
            }
            assertThat(set.buckets(BucketState.METADATA)).as("seed %s step %s: metadata buckets beyond the reserve",
                    seed, i).isLessThanOrEqualTo(reserve);
        }
    }

    private void write(Volume volume, long offsetBytes, int lengthBytes) {
        byte[] data = new byte[lengthBytes];
        prng.nextBytes(data);
        IoResult result = sim.io(done -> volume.write(offsetBytes, ByteBuffer.wrap(data), false, done));
        int firstSector = (int) (offsetBytes / SECTOR_BYTES);
        int endSector = firstSector + lengthBytes / SECTOR_BYTES;
        if (result.ok()) {
            System.arraycopy(data, 0, model, (int) offsetBytes, lengthBytes);
            known.set(firstSector, endSector);
        } else {
            assertThat(result.status()).isIn(IoStatus.IO_ERROR, IoStatus.NO_SPACE);
            known.clear(firstSector, endSector); // a failed write leaves old or new data: either may be read
        }
    }

    private void read(Volume volume, long offsetBytes, int lengthBytes, long seed, int step) {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        IoResult result = sim.io(done -> volume.read(offsetBytes, buffer, done));
        assertThat(result).as("seed %s step %s: read at %s", seed, step, offsetBytes).isEqualTo(IoResult.OK);
        compare(buffer.array(), offsetBytes, seed);
    }

    private void verifyAll(Volume volume, long seed) {
        int chunkBytes = 1 << 20;
        for (long at = 0; at < model.length; at += chunkBytes) {
            int length = (int) Math.min(chunkBytes, model.length - at);
            compare(sim.readOk(volume, at, length), at, seed);
        }
    }

    private void compare(byte[] read, long offsetBytes, long seed) {
        for (int s = 0; s < read.length / SECTOR_BYTES; s++) {
            int sector = (int) (offsetBytes / SECTOR_BYTES) + s;
            if (known.get(sector)) {
                int at = sector * SECTOR_BYTES;
                assertThat(Arrays.equals(read, s * SECTOR_BYTES, (s + 1) * SECTOR_BYTES, model, at, at + SECTOR_BYTES))
                        .as("seed %s: sector %s reads what was last acknowledged", seed, sector).isTrue();
            }
        }
    }
}

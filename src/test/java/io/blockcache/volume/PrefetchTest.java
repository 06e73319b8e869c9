package io.blockcache.volume;

import static io.blockcache.volume.VolumeFixture.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.index.LookupVisitor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Volume#prefetch} in simulated time: what it fills, what it leaves, when it stops. */
class PrefetchTest {
    private static final long VOLUME_BYTES = 256L << 20;
    private static final int MIB = 1 << 20;
    private static final int KIB = 1 << 10;

    @Test
    void aPrefetchFillsExactlyTheRangeAskedForDespiteTheSequentialCutoff() {
        // Proves an explicit prefetch fills every miss of its range (16 MiB, four times the 4 MiB sequential cutoff
        // that stops a read stream's fills), nothing beside it, and that every later read of the range is a hit.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        assertThat(f.volume.bypassSettings().sequentialCutoffBytes()).as("the cutoff is on").isPositive();
        long offset = 8L * MIB + 4 * KIB;
        int length = 16 * MIB;
        f.putBacking(offset, pattern(3, length));
        Prefetch job = prefetch(f, offset, length, 0);
        assertThat(job.state()).isEqualTo(Prefetch.State.DONE);
        assertThat(job.filledBytes()).isEqualTo(length);
        assertThat(job.doneBytes()).isEqualTo(length);
        assertThat(cachedBytes(f, offset, length)).as("the whole range is cached").isEqualTo(length);
        assertThat(cachedBytes(f, 0, (int) offset)).as("nothing before it").isZero();
        assertThat(cachedBytes(f, offset + length, MIB)).as("nothing after it").isZero();
        long hits = f.volume.stats().readHitSectors();
        long misses = f.volume.stats().readMissSectors();
        assertThat(f.read(offset, length / 2)).isEqualTo(java.util.Arrays.copyOf(pattern(3, length), length / 2));
        assertThat(f.read(offset + length / 2, length / 2)).isEqualTo(
                java.util.Arrays.copyOfRange(pattern(3, length), length / 2, length));
        assertThat(f.volume.stats().readHitSectors() - hits).isEqualTo(length / 512);
        assertThat(f.volume.stats().readMissSectors() - misses).isZero();
        Prefetch again = prefetch(f, offset, length, 0);
        assertThat(again.cachedBytes()).as("a second prefetch finds it all cached").isEqualTo(length);
        assertThat(again.filledBytes()).isZero();
    }

    @Test
    void aWriteThatRacesAPrefetchIsNeverOverwritten() {
        // Proves miss collisions: a write landing while the prefetch's backing read is in flight keeps its data; the
        // rest of the range is filled with the backing data.
        ParkedReads backing = new ParkedReads();
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK, (loop, device) -> device,
                inner -> backing.wrap(inner));
        f.putBacking(0, pattern(1, MIB));
        backing.parking = true;
        Prefetch[] job = new Prefetch[1];
        IoResult[] out = new IoResult[1];
        job[0] = f.volume.prefetch(0, MIB, 0, ByteBuffer.allocateDirect(MIB), r -> out[0] = r);
        f.loop.runUntil(() -> !backing.parked.isEmpty());
        byte[] newer = pattern(2, 8 * KIB);
        assertThat(f.write(64 * KIB, newer, false)).isEqualTo(IoResult.OK);
        backing.parking = false;
        backing.release();
        f.loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
        byte[] expected = pattern(1, MIB);
        System.arraycopy(newer, 0, expected, 64 * KIB, newer.length);
        assertThat(f.read(0, MIB)).as("the newer write stays").isEqualTo(expected);
        assertThat(f.volume.stats().fillsRaced()).isPositive();
        assertThat(job[0].state()).isEqualTo(Prefetch.State.DONE);
        assertThat(job[0].racedBytes()).as("the raced piece (one bucket) is left to the write").isEqualTo(128 * KIB);
        assertThat(job[0].filledBytes()).isEqualTo(MIB - 128 * KIB);
    }

    @Test
    void aCacheFullOfDirtyDataStopsThePrefetchAndSaysHowMuchWasFilled() {
        // Proves the bounded wait: with every bucket holding dirty data (no writeback here) the prefetch waits one
        // second of loop time for room, stops as NO_ROOM having filled nothing, and evicts no dirty data.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        int chunk = 128 * KIB;
        for (int i = 0; i < 16; i++) {
            f.write(100L * MIB + (long) i * 4 * MIB, pattern(i, chunk), false); // far apart: no sequential stream
        }
        long dirty = f.extents.dirtySectors();
        assertThat(dirty).as("the cache is full of dirty data").isEqualTo(16L * chunk / 512);
        f.putBacking(0, pattern(40, 2 * MIB));
        long startNs = f.loop.nowNs();
        Prefetch job = prefetch(f, 0, 2 * MIB, 0);
        assertThat(job.state()).isEqualTo(Prefetch.State.NO_ROOM);
        assertThat(job.filledBytes()).isZero();
        assertThat(job.message()).contains("no clean room").contains("filled 0 of " + 2 * MIB);
        assertThat(f.loop.nowNs() - startNs).as("it waited, bounded").isBetween(RangePrefetch.ROOM_WAIT_NS_MAX,
                2 * RangePrefetch.ROOM_WAIT_NS_MAX);
        assertThat(f.extents.dirtySectors()).as("no dirty data evicted").isEqualTo(dirty);
        for (int i = 0; i < 16; i++) {
            assertThat(f.read(100L * MIB + (long) i * 4 * MIB, chunk)).isEqualTo(pattern(i, chunk));
        }
        assertThat(f.read(0, 2 * MIB)).isEqualTo(pattern(40, 2 * MIB));
    }

    @Test
    void aBriefShortageOfRoomIsWaitedOutNotDropped() {
        // Proves a fill that finds no room waits for some: the cache is full of dirty data until 200 ms of loop time,
        // when two of its buckets are trimmed and freed; the prefetch then fills its 256 KiB whole.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        int chunk = 128 * KIB;
        for (int i = 0; i < 16; i++) {
            f.write(100L * MIB + (long) i * 4 * MIB, pattern(i, chunk), false);
        }
        f.putBacking(0, pattern(50, 2 * chunk));
        long startNs = f.loop.nowNs();
        f.loop.schedule(200_000_000L, () -> f.volume.discard(100L * MIB, 8L * MIB, trimmed -> {
            assertThat(trimmed).isEqualTo(IoResult.OK);
            f.space.allocator().onJournalDurable(Long.MAX_VALUE); // the journal here commits at once
        }));
        Prefetch job = prefetch(f, 0, 2 * chunk, 0);
        assertThat(job.state()).isEqualTo(Prefetch.State.DONE);
        assertThat(f.loop.nowNs() - startNs).as("it waited for the trim").isGreaterThanOrEqualTo(200_000_000L);
        assertThat(job.filledBytes()).isEqualTo(2 * chunk);
        assertThat(cachedBytes(f, 0, 2 * chunk)).isEqualTo(2 * chunk);
        assertThat(f.read(0, 2 * chunk)).isEqualTo(pattern(50, 2 * chunk));
    }

    @Test
    void theRateCapSpacesTheBackingReads() {
        // Proves the rate cap: 8 MiB at 4 MiB/s takes at least (8 - 1) / 4 s of loop time (the first 1 MiB chunk goes
        // at once) and at most a little more.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        long startNs = f.loop.nowNs();
        Prefetch job = prefetch(f, 0, 8 * MIB, 4L * MIB);
        assertThat(job.state()).isEqualTo(Prefetch.State.DONE);
        assertThat(job.filledBytes()).isEqualTo(8 * MIB);
        assertThat(f.loop.nowNs() - startNs).isBetween(1_750_000_000L, 2_100_000_000L);
    }

    @Test
    void aCancelEndsTheRateWaitAtOnceAndAClosedVolumeStopsThePrefetch() {
        // Proves cancel and close: a capped prefetch cancelled during its rate wait ends CANCELLED at that loop time
        // (not when the wait would have ended), keeping what it filled; one running when its volume closes fails with
        // CLOSED instead of writing on.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        IoResult[] out = new IoResult[1];
        Prefetch job = f.volume.prefetch(0, 8 * MIB, 1L * MIB, ByteBuffer.allocateDirect(MIB), r -> out[0] = r);
        f.loop.runUntil(() -> job.filledBytes() == MIB);
        long cancelNs = f.loop.nowNs();
        job.cancel();
        f.loop.runUntil(() -> out[0] != null);
        assertThat(out[0]).isEqualTo(IoResult.OK);
        assertThat(job.state()).isEqualTo(Prefetch.State.CANCELLED);
        assertThat(f.loop.nowNs() - cancelNs).as("not after the 1 s wait").isLessThan(1_000_000L);
        assertThat(cachedBytes(f, 0, MIB)).isEqualTo(MIB);

        IoResult[] second = new IoResult[1];
        Prefetch closing = f.volume.prefetch(4L * MIB, 8 * MIB, 1L * MIB, ByteBuffer.allocateDirect(MIB),
                r -> second[0] = r);
        f.loop.runUntil(() -> closing.filledBytes() == MIB);
        f.volume.close();
        f.loop.runUntilIdle();
        assertThat(second[0].status()).isEqualTo(io.blockcache.device.IoStatus.CLOSED);
        assertThat(closing.state()).isEqualTo(Prefetch.State.FAILED);
        assertThat(closing.filledBytes()).isEqualTo(MIB);
    }

    @Test
    void withTheCacheOffAPrefetchEndsAtOnceWithoutAnError() {
        // Proves mode none: nothing is filled, the job says why, and the caller (NBD_CMD_CACHE) gets OK, not an error.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.NONE);
        Prefetch job = prefetch(f, 0, MIB, 0);
        assertThat(job.state()).isEqualTo(Prefetch.State.FAILED);
        assertThat(job.message()).contains("mode none");
        assertThat(cachedBytes(f, 0, MIB)).isZero();
    }

    private static Prefetch prefetch(VolumeFixture f, long offset, long length, long rate) {
        IoResult[] out = new IoResult[1];
        Prefetch job = f.volume.prefetch(offset, length, rate, ByteBuffer.allocateDirect(MIB), r -> out[0] = r);
        f.loop.runUntilIdle();
        assertThat(out[0]).as("prefetch completed").isEqualTo(IoResult.OK);
        assertThat(job.state().ended()).isTrue();
        return job;
    }

    /** Bytes of {@code [offset, + length)} the index holds. */
    private static long cachedBytes(VolumeFixture f, long offset, int length) {
        long[] bytes = new long[1];
        f.volume.index().lookup(offset / 512, length / 512, new LookupVisitor() {
            @Override
            public void hole(long start, int sectors) {
            }

            @Override
            public void extent(long start, int sectors, long location, int crc32c, int crcOffset, int crcLength) {
                bytes[0] += sectors * 512L;
            }
        });
        return bytes[0];
    }

    /** Holds backing reads while {@link #parking}, until {@link #release}. */
    private static final class ParkedReads {
        boolean parking;
        final List<Runnable> parked = new ArrayList<>();

        BlockDevice wrap(BlockDevice inner) {
            return new ForwardingDevice(inner) {
                @Override
                public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
                    if (parking) {
                        parked.add(() -> inner().read(offsetBytes, dst, callback));
                    } else {
                        inner().read(offsetBytes, dst, callback);
                    }
                }
            };
        }

        void release() {
            parked.forEach(Runnable::run);
            parked.clear();
        }
    }
}

package io.blockcache.volume;

import static io.blockcache.volume.VolumeFixture.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BypassTest {
    private static final long VOLUME_BYTES = 256L << 20;
    private static final int KIB = 1024;
    private static final long MS = 1_000_000L;

    @Test
    void aSequentialWriteStreamGoesAroundTheCacheOnceItsRunReachesTheCutoff() {
        // Proves sequential bypass: 256 KiB writes are cached until the stream reaches 4 MiB, the rest go to the
        // backing device; everything reads back; a write elsewhere starts a new stream and is cached again.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        int chunk = 256 * KIB;
        for (int i = 0; i < 24; i++) {
            assertThat(f.write((long) i * chunk, pattern(i, chunk), false)).isEqualTo(IoResult.OK);
        }
        assertThat(f.volume.stats().writeCachedSectors()).as("15 chunks = 3.75 MiB, below the cutoff")
                .isEqualTo(15L * chunk / 512);
        assertThat(f.volume.stats().sequentialBypassedSectors()).isEqualTo(9L * chunk / 512);
        assertThat(f.backing(20L * chunk, chunk)).as("a bypassed chunk is on the backing device")
                .isEqualTo(pattern(20, chunk));
        assertThat(f.backing(3L * chunk, chunk)).as("a cached chunk is not").isEqualTo(new byte[chunk]);
        for (int i = 0; i < 24; i++) {
            assertThat(f.read((long) i * chunk, chunk)).as("chunk %s", i).isEqualTo(pattern(i, chunk));
        }
        long cached = f.volume.stats().writeCachedSectors();
        f.write(100L << 20, pattern(99, chunk), false);
        assertThat(f.volume.stats().writeCachedSectors()).as("a new stream is cached").isEqualTo(cached + chunk / 512);
    }

    @Test
    void aBypassNeverGoesOverDirtyDataAndInvalidatesCleanCopies() {
        // Proves the invariant: a sequential stream past the cutoff still caches the parts over dirty data (the
        // backing device never sees them), and a bypassed write drops the clean copy it overlaps.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.volume.setBypassSettings(BypassSettings.defaults().withSequentialCutoffBytes(128 * KIB));
        int chunk = 64 * KIB;
        f.write(4L * chunk, pattern(100, chunk), false); // dirty, a stream of its own
        f.putBacking(6L * chunk, pattern(101, chunk));
        assertThat(f.read(6L * chunk, chunk)).isEqualTo(pattern(101, chunk)); // now a clean copy in the cache
        assertThat(f.volume.stats().fillSectors()).isEqualTo(chunk / 512);
        for (int i = 0; i < 8; i++) {
            assertThat(f.write((long) i * chunk, pattern(i, chunk), false)).isEqualTo(IoResult.OK);
        }
        assertThat(f.backing(4L * chunk, chunk)).as("never around the cache over dirty data")
                .isEqualTo(new byte[chunk]);
        assertThat(f.extents.dirtySectors()).as("chunk 0 (run below cutoff) and chunk 4 (over dirty) are dirty")
                .isEqualTo(2L * chunk / 512);
        assertThat(f.volume.stats().sequentialBypassedSectors()).isEqualTo(6L * chunk / 512);
        assertThat(f.backing(6L * chunk, chunk)).isEqualTo(pattern(6, chunk));
        long hits = f.volume.stats().readHitSectors();
        for (int i = 0; i < 8; i++) {
            assertThat(f.read((long) i * chunk, chunk)).as("chunk %s", i).isEqualTo(pattern(i, chunk));
        }
        assertThat(f.volume.stats().readHitSectors() - hits).as("only the two dirty chunks are still cached")
                .isEqualTo(2L * chunk / 512);
    }

    @Test
    void aSequentialReadStreamPastTheCutoffIsNotFilledButHitsStillServe() {
        // Proves read-side sequential bypass: misses past the cutoff are not filled; cached data is still read.
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK);
        int chunk = 512 * KIB;
        for (int i = 0; i < 12; i++) {
            f.putBacking((long) i * chunk, pattern(i, chunk));
        }
        for (int i = 0; i < 12; i++) {
            assertThat(f.read((long) i * chunk, chunk)).as("chunk %s", i).isEqualTo(pattern(i, chunk));
        }
        assertThat(f.volume.stats().fillSectors()).as("7 chunks = 3.5 MiB filled").isEqualTo(7L * chunk / 512);
        assertThat(f.volume.stats().fillsSkippedSectors()).isEqualTo(5L * chunk / 512);
        f.loop.runFor(SequentialStreams.STREAM_EXPIRY_NS); // the stream expires
        long hits = f.volume.stats().readHitSectors();
        assertThat(f.read(0, chunk)).isEqualTo(pattern(0, chunk));
        assertThat(f.volume.stats().readHitSectors() - hits).isEqualTo(chunk / 512);
    }

    @Test
    void aCongestedCacheDeviceSendsCleanWritesAndFillsAroundUntilItRecovers() {
        // Proves congestion bypass: with cache writes taking 30 ms (> 20 ms), new clean-range writes go around and
        // fills stop, writes over dirty data are still cached, all reads are right; once the device is fast again
        // and the old average has expired, writes are cached again.
        FaultyDevice[] slow = new FaultyDevice[1];
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK, (loop, device) ->
                slow[0] = new FaultyDevice(device, loop, FaultPlan.none().withLatencySpikes(1.0, 30 * MS),
                        new Prng(5)));
        int chunk = 16 * KIB;
        f.write(0, pattern(1, chunk), false); // cached; its cache write took 30 ms: congested from now on
        assertThat(f.volume.stats().writeCachedSectors()).isEqualTo(chunk / 512);
        f.write(10L << 20, pattern(2, chunk), false);
        assertThat(f.volume.stats().congestedBypassedSectors()).isEqualTo(chunk / 512);
        assertThat(f.backing(10L << 20, chunk)).isEqualTo(pattern(2, chunk));
        f.write(0, pattern(3, chunk), false); // over dirty data: cached regardless
        assertThat(f.backing(0, chunk)).isEqualTo(new byte[chunk]);
        f.putBacking(20L << 20, pattern(4, chunk));
        assertThat(f.read(20L << 20, chunk)).isEqualTo(pattern(4, chunk));
        assertThat(f.volume.stats().fillSectors()).as("no fill while congested").isZero();
        assertThat(f.read(0, chunk)).isEqualTo(pattern(3, chunk));
        assertThat(f.read(10L << 20, chunk)).isEqualTo(pattern(2, chunk));

        slow[0].setPlan(FaultPlan.none());
        f.loop.runFor(CongestionMonitor.SAMPLE_EXPIRY_NS);
        long bypassed = f.volume.stats().congestedBypassedSectors();
        f.write(30L << 20, pattern(5, chunk), false);
        f.write(40L << 20, pattern(6, chunk), false);
        assertThat(f.volume.stats().congestedBypassedSectors()).as("recovered").isEqualTo(bypassed);
        assertThat(f.backing(40L << 20, chunk)).isEqualTo(new byte[chunk]);
    }

    @Test
    void writebackReadsDoNotMakeTheCacheDeviceLookCongestedButFrontEndReadsDo() {
        // Proves the congestion probe sees the front end only: writeback's reads (CacheExtentReader.read) taking
        // 10 ms (above the 2 ms read threshold) leave the read average unknown and a new write cached; a front-end
        // hit taking as long makes the next new write go around. Fails with writeback's reads probed (checked).
        FaultyDevice[] slow = new FaultyDevice[1];
        VolumeFixture f = new VolumeFixture(256, VOLUME_BYTES, CacheMode.WRITEBACK, (loop, device) ->
                slow[0] = new FaultyDevice(device, loop, FaultPlan.none(), new Prng(6)));
        int chunk = 16 * KIB;
        f.write(0, pattern(1, chunk), false);
        slow[0].setPlan(FaultPlan.none().withLatencySpikes(1.0, 10 * MS)); // reads over 2 ms, writes under 20 ms
        long[] piece = new long[4];
        f.volume.index().lookup(0, chunk / 512, new io.blockcache.index.LookupVisitor() {
            @Override
            public void hole(long start, int length) {
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                               int crcLengthSectors) {
                piece[0] = location;
                piece[1] = crc32c;
                piece[2] = crcOffsetInBucketSectors;
                piece[3] = crcLengthSectors;
            }
        });
        CacheExtentReader.Outcome[] outcome = new CacheExtentReader.Outcome[1];
        f.volume.extentReader().read(chunk / 512, piece[0], (int) piece[1], (int) piece[2], (int) piece[3],
                ByteBuffer.allocate(chunk), (result, device) -> outcome[0] = result);
        f.loop.runFor(20 * MS);
        assertThat(outcome[0]).isEqualTo(CacheExtentReader.Outcome.OK);
        assertThat(f.volume.cacheReadLatencyAverageNs()).as("writeback's read is not probed").isZero();
        f.write(10L << 20, pattern(2, chunk), false);
        assertThat(f.volume.stats().congestedBypassedSectors()).isZero();
        assertThat(f.volume.cacheWriteLatencyAverageNs()).as("the front end's writes are").isPositive();

        assertThat(f.read(0, chunk)).isEqualTo(pattern(1, chunk)); // a front-end hit, 10 ms
        assertThat(f.volume.cacheReadLatencyAverageNs()).isEqualTo(10 * MS);
        f.write(20L << 20, pattern(3, chunk), false);
        assertThat(f.volume.stats().congestedBypassedSectors()).isEqualTo(chunk / 512);
        assertThat(f.backing(20L << 20, chunk)).isEqualTo(pattern(3, chunk));
    }

    @Test
    void aWriteThatFindsNoFreeBucketGoesAroundAndIsCountedAsNoRoom() {
        // Proves the no-room count: with every bypass off, bucket-sized writes fill the cache until one finds no
        // free bucket; it goes to the backing device, counted as no room (and as bypassed), and reads back.
        VolumeFixture f = new VolumeFixture(40, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.volume.setBypassSettings(BypassSettings.off());
        int bucket = VolumeFixture.BUCKET_BYTES;
        int next = 0;
        while (f.volume.stats().noRoomBypassedSectors() == 0 && next < 100) {
            assertThat(f.write(offset(next), pattern(next, bucket), false)).isEqualTo(IoResult.OK);
            next++;
        }
        assertThat(f.volume.stats().noRoomBypassedSectors()).isEqualTo(bucket / 512);
        assertThat(f.volume.stats().writeBypassedSectors()).isEqualTo(bucket / 512);
        int last = next - 1;
        assertThat(f.backing(offset(last), bucket)).isEqualTo(pattern(last, bucket));
        assertThat(f.read(offset(last), bucket)).isEqualTo(pattern(last, bucket));
    }

    @Test
    void occupancyCutoffsCacheEveryWriteTo40PercentOnlyFuaTo70AndNoneAbove() {
        // Proves bcache's cutoffs on buckets holding dirty data: plain writes bypass above 40 %, FUA ones above
        // 70 %; bypassed writes read back; a write over dirty data is cached even at 70 %+.
        VolumeFixture f = new VolumeFixture(100, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.volume.setBypassSettings(BypassSettings.defaults().withThrottle(100, 0));
        int bucket = VolumeFixture.BUCKET_BYTES;
        int next = 0;
        while (inUse(f) <= 40) {
            assertThat(f.write(offset(next), pattern(next, bucket), false)).isEqualTo(IoResult.OK);
            next++;
        }
        assertThat(f.volume.stats().occupancyBypassedSectors()).isZero();
        assertThat(next).as("buckets written before the first cutoff").isBetween(40, 42);
        f.write(offset(next), pattern(next, bucket), false);
        assertThat(f.volume.stats().occupancyBypassedSectors()).isEqualTo(bucket / 512);
        next++;
        while (inUse(f) <= 70) {
            long before = f.volume.stats().writeCachedSectors();
            f.write(offset(next), pattern(next, bucket), true);
            assertThat(f.volume.stats().writeCachedSectors()).as("FUA at %s %%", inUse(f)).isGreaterThan(before);
            next++;
        }
        long bypassed = f.volume.stats().occupancyBypassedSectors();
        f.write(offset(next), pattern(next, bucket), true);
        assertThat(f.volume.stats().occupancyBypassedSectors()).as("FUA above 70 %").isEqualTo(bypassed + bucket / 512);
        next++;
        f.write(offset(0), pattern(1000, 4 * KIB), false); // over dirty data
        assertThat(f.backing(offset(0), 4 * KIB)).isEqualTo(new byte[4 * KIB]);
        for (int i = 1; i < next; i++) {
            assertThat(f.read(offset(i), bucket)).as("bucket-sized write %s", i).isEqualTo(pattern(i, bucket));
        }
        assertThat(f.read(offset(0), 4 * KIB)).isEqualTo(pattern(1000, 4 * KIB));
    }

    @Test
    void throttlingRaisesWriteLatencySmoothlyWithDirtyOccupancyAndNeverBeyondItsBound() {
        // Proves the throttle: from 30 % dirty to the 40 % cutoff, a QD1 writer's latency grows step by step with the
        // dirty data (never falls, never jumps to a wall); a burst of 200 writes is held at most 100 ms each and all
        // succeed.
        VolumeFixture f = new VolumeFixture(100, VOLUME_BYTES, CacheMode.WRITEBACK);
        int bucket = VolumeFixture.BUCKET_BYTES;
        int next = 0;
        double lastLatencyNs = 0;
        int levels = 0;
        for (int level = 25; level <= 39; level += level == 25 ? 6 : 2) {
            while (inUse(f) < level) {
                f.write(offset(next), pattern(next, bucket), true);
                next++;
            }
            long start = f.loop.nowNs();
            for (int i = 0; i < 4; i++) {
                f.write(offset(next) + i * 4L * KIB, pattern(i, 4 * KIB), true); // in one bucket's range: one stream
            }
            next++;
            double latencyNs = (f.loop.nowNs() - start) / 4.0;
            if (level == 25) {
                assertThat(latencyNs).as("no throttle below 30 %%").isLessThan(0.1 * MS);
            } else {
                assertThat(latencyNs).as("latency at %s %%", level).isGreaterThan(lastLatencyNs)
                        .isLessThan(lastLatencyNs + 2 * MS);
                levels++;
            }
            lastLatencyNs = latencyNs;
        }
        assertThat(levels).isEqualTo(5);
        assertThat(f.volume.stats().throttleDelayNsMax()).isLessThanOrEqualTo(100 * MS);

        IoResult[] results = new IoResult[200];
        long[] doneNs = new long[200];
        long start = f.loop.nowNs();
        for (int i = 0; i < 200; i++) {
            int n = i;
            f.volume.write(offset(next + i), ByteBuffer.wrap(pattern(i, 4 * KIB)), true, r -> {
                results[n] = r;
                doneNs[n] = f.loop.nowNs();
            });
        }
        f.loop.runUntilIdle();
        assertThat(results).containsOnly(IoResult.OK);
        assertThat(f.volume.stats().throttleDelayNsMax()).isEqualTo(100 * MS);
        for (int i = 0; i < 200; i++) {
            assertThat(doneNs[i] - start).as("write %s", i).isLessThanOrEqualTo(101 * MS);
        }
    }

    @Test
    void theThrottleFollowsDirtyDataNotBucketsHoldingALittleOfIt() {
        // Proves the throttle looks at dirty data: 60 buckets each holding one dirty 4 KiB block (what small random
        // overwrites leave behind) are 60 % in use, past the throttle's 30 % and the plain cutoff's 40 %, yet hold a
        // sliver of dirty data, so a FUA write (cached up to 70 %) is not held; filled with dirty data, it is.
        VolumeFixture f = new VolumeFixture(100, VOLUME_BYTES, CacheMode.WRITEBACK);
        int bucket = VolumeFixture.BUCKET_BYTES;
        int next = 0;
        while (inUse(f) < 60) {
            assertThat(f.write(offset(next), pattern(next, bucket), true)).isEqualTo(IoResult.OK);
            IoResult[] trimmed = new IoResult[1];
            f.volume.discard(offset(next) + 4 * KIB, bucket - 4 * KIB, r -> trimmed[0] = r);
            f.loop.runUntilIdle();
            assertThat(trimmed[0]).isEqualTo(IoResult.OK);
            next++;
        }
        assertThat(inUse(f)).isBetween(60.0, 62.0);
        long start = f.loop.nowNs();
        assertThat(f.write(offset(next), pattern(next, 4 * KIB), true)).isEqualTo(IoResult.OK);
        assertThat(f.loop.nowNs() - start).as("a FUA write at 60 % in use, little dirty data").isLessThan(MS / 10);
        assertThat(f.volume.stats().writesThrottled()).isZero();
        next++;

        VolumeFixture full = new VolumeFixture(100, VOLUME_BYTES, CacheMode.WRITEBACK);
        next = 0;
        while (inUse(full) < 60) {
            full.write(offset(next), pattern(next, bucket), true);
            next++;
        }
        start = full.loop.nowNs();
        assertThat(full.write(offset(next), pattern(next, 4 * KIB), true)).isEqualTo(IoResult.OK);
        assertThat(full.loop.nowNs() - start).as("a FUA write at 60 % in use, all of it dirty").isGreaterThan(MS / 10);
        assertThat(full.volume.stats().writesThrottled()).isPositive();
    }

    @Test
    void theOccupancyCutoffCountsDirtyDataAndScarceRoomPacesWritersInstead() {
        // Proves the cutoff looks at dirty data: with 62 % and then 85 % of the buckets each holding one dirty 4 KiB
        // block (what small random overwrites leave behind) plain writes are still cached, not sent around the cache
        // (until 2026-12-07 everything above 40 % of the buckets went around); the room left is instead guarded by
        // the throttle, which holds a write longer the fewer buckets are free.
        VolumeFixture f = new VolumeFixture(100, VOLUME_BYTES, CacheMode.WRITEBACK);
        int bucket = VolumeFixture.BUCKET_BYTES;
        int next = 0;
        long[] heldNs = new long[2];
        double[] levels = {62, 85};
        for (int l = 0; l < levels.length; l++) {
            while (inUse(f) < levels[l]) {
                assertThat(f.write(offset(next), pattern(next, bucket), true)).isEqualTo(IoResult.OK);
                IoResult[] trimmed = new IoResult[1];
                f.volume.discard(offset(next) + 4 * KIB, bucket - 4 * KIB, r -> trimmed[0] = r);
                f.loop.runUntilIdle();
                assertThat(trimmed[0]).isEqualTo(IoResult.OK);
                next++;
            }
            assertThat(f.volume.cacheDirtyDataPercent()).as("a sliver of dirty data").isLessThan(5.0);
            long cached = f.volume.stats().writeCachedSectors();
            long start = f.loop.nowNs();
            assertThat(f.write(offset(next), pattern(next, 4 * KIB), false)).isEqualTo(IoResult.OK);
            heldNs[l] = f.loop.nowNs() - start;
            assertThat(f.volume.stats().writeCachedSectors()).as("cached at %s %% in use", levels[l])
                    .isEqualTo(cached + 8);
            next++;
        }
        assertThat(f.volume.stats().occupancyBypassedSectors()).isZero();
        assertThat(heldNs[0]).as("held at 62 %% in use").isPositive();
        assertThat(heldNs[1]).as("held longer at 85 %% in use").isGreaterThan(heldNs[0]);
    }

    /** Write offsets one bucket apart with a gap, so that no two writes form a sequential stream. */
    private static long offset(int n) {
        return (long) n * 2 * VolumeFixture.BUCKET_BYTES;
    }

    /** The gauge's value after 1 ms of loop time, so that it has swept again. */
    private static double inUse(VolumeFixture f) {
        f.loop.runFor(OccupancyGauge.SLICE_GAP_NS);
        return f.volume.cacheInUsePercent();
    }
}

package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HddModelTest {
    private static final HddConfig NO_CACHE = HddConfig.defaults().withWriteCache(false);

    private static ClosedLoopWorkload.Result run(HddConfig config, ClosedLoopWorkload.Spec spec, long seed) {
        SimLoop loop = new SimLoop();
        HddModel hdd = new HddModel(loop, config);
        return new ClosedLoopWorkload(loop, hdd, spec, new Prng(seed)).run();
    }

    private static ClosedLoopWorkload.Spec randomReads(int queueDepth) {
        return new ClosedLoopWorkload.Spec(false, true, queueDepth, 4096, 600, 0, NO_CACHE.sizeBytes());
    }

    @Test
    void randomReadsAtQd1GiveTheUsualDesktopDiskIops() {
        // Proves seek curve + rotation give 70-100 IOPS for 4 KiB random reads over the whole disk at QD1.
        double iops = run(NO_CACHE, randomReads(1), 1).iops();
        assertThat(iops).isBetween(70.0, 100.0);
    }

    @Test
    void deepQueueWithSptfAtLeastSixtyPercentFaster() {
        // Proves shortest-positioning-time-first over 32 queued commands beats QD1 by >= 1.6x.
        double qd1 = run(NO_CACHE, randomReads(1), 2).iops();
        double qd32 = run(NO_CACHE, randomReads(32), 2).iops();
        assertThat(qd32).isGreaterThanOrEqualTo(1.6 * qd1);
    }

    @Test
    void sequentialReadsRunAtTheZoneRateOuterAndInner() {
        // Proves sequential transfer is within 10 % of the configured outer (250 MB/s) and inner (120 MB/s) rate.
        long region = 64L << 20;
        var outer = new ClosedLoopWorkload.Spec(false, false, 1, 128 << 10, 400, 0, region);
        var inner = new ClosedLoopWorkload.Spec(false, false, 1, 128 << 10, 400, NO_CACHE.sizeBytes() - region, region);
        assertThat(run(NO_CACHE, outer, 3).mbPerSecond()).isBetween(225.0, 275.0);
        assertThat(run(NO_CACHE, inner, 3).mbPerSecond()).isBetween(108.0, 132.0);
    }

    @Test
    void sequentialStreamPaysNoRotationalLatency() {
        // Proves each request of a QD1 sequential stream takes its pure transfer time (plus at most one track switch).
        SimLoop loop = new SimLoop();
        HddModel hdd = new HddModel(loop, NO_CACHE);
        int requestBytes = 64 << 10;
        long startBytes = 1L << 30; // away from the head's parking place, so the first request must position
        long transferNs = hdd.transferNs(startBytes, requestBytes);
        List<Long> latenciesNs = new ArrayList<>();
        long[] offset = {startBytes};
        long[] submitNs = {0};
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            submitNs[0] = loop.nowNs();
            hdd.read(offset[0], ByteBuffer.allocate(requestBytes), r -> {
                latenciesNs.add(loop.nowNs() - submitNs[0]);
                offset[0] += requestBytes;
                if (latenciesNs.size() < 200) {
                    next[0].run();
                }
            });
        };
        next[0].run();
        loop.runUntilIdle();
        List<Long> afterFirst = latenciesNs.subList(1, latenciesNs.size());
        long trackSwitchNs = NO_CACHE.trackToTrackSeekNs();
        assertThat(afterFirst).allSatisfy(ns ->
                assertThat(ns).isBetween(transferNs - 1000, transferNs + trackSwitchNs + 1000));
        // Most requests do not cross a track, so they take exactly the transfer time (no rotational wait).
        assertThat(afterFirst.stream().filter(ns -> ns <= transferNs + 1000).count()).isGreaterThan(150);
        // Sanity: the first request did pay positioning (the test can tell the difference).
        assertThat(latenciesNs.get(0)).isGreaterThan(transferNs);
    }

    @Test
    void writesReadBackAndUnwrittenSectorsReadZeroWithCacheOnAndOff() {
        // Proves the HDD holds real contents in both cache modes.
        for (HddConfig config : List.of(HddConfig.defaults(), NO_CACHE)) {
            SimLoop loop = new SimLoop();
            HddModel hdd = new HddModel(loop, config);
            byte[] data = new byte[8192];
            new Prng(5).nextBytes(data);
            List<IoResult> results = new ArrayList<>();
            hdd.write(1 << 20, ByteBuffer.wrap(data), false, results::add);
            loop.runUntilIdle();
            ByteBuffer back = ByteBuffer.allocate(8192 + 512);
            hdd.read(1 << 20, back, results::add);
            loop.runUntilIdle();
            assertThat(results).containsOnly(IoResult.OK);
            assertThat(java.util.Arrays.copyOf(back.array(), 8192)).isEqualTo(data);
            assertThat(java.util.Arrays.copyOfRange(back.array(), 8192, 8704)).containsOnly((byte) 0);
        }
    }

    @Test
    void outOfRangeAndMisalignedRequestsCompleteWithErrorValues() {
        // Proves range and alignment checks answer with OUT_OF_RANGE / MISALIGNED instead of throwing.
        SimLoop loop = new SimLoop();
        HddModel hdd = new HddModel(loop, NO_CACHE);
        List<IoStatus> statuses = new ArrayList<>();
        hdd.read(hdd.sizeBytes(), ByteBuffer.allocate(512), r -> statuses.add(r.status()));
        hdd.read(-512, ByteBuffer.allocate(512), r -> statuses.add(r.status()));
        hdd.write(100, ByteBuffer.allocate(512), false, r -> statuses.add(r.status()));
        assertThat(statuses).isEmpty(); // never called back from inside the submitting call
        loop.runUntilIdle();
        assertThat(statuses).containsExactly(IoStatus.OUT_OF_RANGE, IoStatus.OUT_OF_RANGE, IoStatus.MISALIGNED);
        assertThat(hdd.counters().inFlight()).isZero();
    }
}

package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultyDeviceTest {
    private final SimLoop loop = new SimLoop();
    private final SsdModel ssd = new SsdModel(loop, SsdConfig.defaults());

    private FaultyDevice faulty(FaultPlan plan) {
        return new FaultyDevice(ssd, loop, plan, new Prng(77));
    }

    /** Issues {@code count} 4 KiB reads one after another at offset {@code i * 4096}; returns results in order. */
    private List<IoResult> reads(FaultyDevice device, int count) {
        List<IoResult> results = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int expected = results.size() + 1;
            device.read(i * 4096L, ByteBuffer.allocate(4096), results::add);
            loop.runUntil(() -> results.size() == expected);
        }
        return results;
    }

    private static boolean injected(IoResult result) {
        return result.status() == IoStatus.IO_ERROR && result.message().startsWith("injected fault: ");
    }

    @Test
    void countFaultFailsExactlyTheNumberedRequests() {
        // Proves "fail requests 3..4" fails those two, marked as injected, and nothing else.
        List<IoResult> results = reads(faulty(FaultPlan.none().withFailedRequests(3, 2)), 8);
        for (int i = 0; i < results.size(); i++) {
            boolean shouldFail = i == 2 || i == 3;
            assertThat(injected(results.get(i))).as("request %d", i + 1).isEqualTo(shouldFail);
            assertThat(results.get(i).ok()).isEqualTo(!shouldFail);
        }
        assertThat(ssd.counters().submitted(DeviceOp.READ)).isEqualTo(6); // failed ones never reached the device
    }

    @Test
    void failNextArmsAtRunTime() {
        // Proves failNext(n) fails exactly the next n requests.
        FaultyDevice device = faulty(FaultPlan.none());
        reads(device, 2);
        device.failNext(1);
        List<IoResult> results = reads(device, 3);
        assertThat(results).extracting(FaultyDeviceTest::injected).containsExactly(true, false, false);
    }

    @Test
    void rateFaultFailsRoughlyTheConfiguredFraction() {
        // Proves a 20 % rate fails about a fifth of 1000 requests and the rest succeed.
        List<IoResult> results = reads(faulty(FaultPlan.none().withFailProbability(0.2)), 1000);
        long failed = results.stream().filter(FaultyDeviceTest::injected).count();
        assertThat(failed).isBetween(150L, 250L);
        assertThat(results.stream().filter(r -> !injected(r))).allMatch(IoResult::ok);
    }

    @Test
    void regionFaultFailsOnlyThatKindInThatRange() {
        // Proves a WRITE region fault fails overlapping writes but not reads there nor writes elsewhere.
        FaultyDevice device = faulty(FaultPlan.none().withRegion(DeviceOp.WRITE, 8192, 4096));
        List<IoResult> results = new ArrayList<>();
        device.write(8192, ByteBuffer.allocate(4096), false, results::add);
        device.write(4096, ByteBuffer.allocate(8192), false, results::add); // overlaps the region's first byte
        device.write(12288, ByteBuffer.allocate(4096), false, results::add);
        device.read(8192, ByteBuffer.allocate(4096), results::add);
        loop.runUntilIdle();
        assertThat(results).hasSize(4);
        assertThat(results.stream().filter(FaultyDeviceTest::injected).count()).isEqualTo(2);
        assertThat(results.stream().filter(IoResult::ok).count()).isEqualTo(2);
    }

    @Test
    void latencySpikesDelaySomeRequestsByTheConfiguredAmountAndKeepThemCorrect() {
        // Proves spikes add exactly the configured delay to about the configured fraction and never fail a request.
        long spikeNs = 5_000_000;
        FaultyDevice device = faulty(FaultPlan.none().withLatencySpikes(0.25, spikeNs));
        int spiked = 0;
        for (int i = 0; i < 400; i++) {
            long start = loop.nowNs();
            List<IoResult> results = new ArrayList<>();
            device.read(0, ByteBuffer.allocate(4096), results::add);
            loop.runUntil(() -> !results.isEmpty());
            assertThat(results).containsExactly(IoResult.OK);
            long latencyNs = loop.nowNs() - start;
            assertThat(latencyNs).isIn(SsdConfig.defaults().readLatencyNs(),
                    SsdConfig.defaults().readLatencyNs() + spikeNs);
            spiked += latencyNs > spikeNs ? 1 : 0;
        }
        assertThat(spiked).isBetween(60, 140);
    }
}

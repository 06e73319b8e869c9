package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.admin.MetricHistory.Point;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's series from consecutive snapshots: rates and latency of each interval, not since start. */
class HistorySamplerTest {
    private static Map<String, Double> byName(List<Point> points) {
        Map<String, Double> values = new HashMap<>();
        points.forEach(point -> values.put(point.series(), point.value()));
        return values;
    }

    @Test
    void ratesAndLatencyAreThoseOfTheIntervalBetweenTwoSnapshots() {
        // Proves the arithmetic by hand: every counter of StatsSamples.full grows by 10 from base 0 to base 10, over
        // 2 s, so a sector counter reads 10 × 512 / 2 = 2560 B/s; the interval's histogram is 40 requests in each of
        // the 20 buckets (four operations), so p50 is the top of bucket 9 (10 ms) and p99 falls in +Inf (10 s).
        HistorySampler sampler = new HistorySampler();
        Map<String, Double> first = byName(sampler.points(StatsSamples.full(0), 1_000));
        assertThat(first.get("volume/alpha/readBytesPerSecond")).as("no rate without an interval").isNaN();
        assertThat(first.get("volume/alpha/latencyP99Us")).isNaN();
        assertThat(first.get("volume/alpha/dirtyBytes")).as("a gauge is there at once").isEqualTo(97.0);

        Map<String, Double> second = byName(sampler.points(StatsSamples.full(10), 3_000));
        assertThat(second.get("volume/alpha/requestsPerSecond")).isEqualTo(5.0);
        assertThat(second.get("volume/alpha/readBytesPerSecond")).isEqualTo(5120.0);
        assertThat(second.get("volume/alpha/readHitBytesPerSecond")).isEqualTo(2560.0);
        assertThat(second.get("volume/alpha/readMissBytesPerSecond")).isEqualTo(2560.0);
        assertThat(second.get("volume/alpha/writeBytesPerSecond")).isEqualTo(5120.0);
        assertThat(second.get("volume/alpha/writtenBackBytesPerSecond")).isEqualTo(2560.0);
        assertThat(second.get("volume/alpha/writebackRateBytesPerSecond")).isEqualTo(26.0 * 512);
        assertThat(second.get("device/cache/readBytesPerSecond")).isEqualTo(2560.0);
        assertThat(second.get("device/beta/errorsPerSecond")).isEqualTo(5.0);
        // Sums of the four histograms (StatsSamples.histogram): 2,500 ms at base 0, 22,100 ms at base 10.
        assertThat(second.get("volume/alpha/latencyMeanUs")).isEqualTo(19_600_000.0 / 800);
        assertThat(second.get("volume/alpha/latencyP50Us")).isEqualTo(10_000.0);
        assertThat(second.get("volume/alpha/latencyP99Us")).isEqualTo(10_000_000.0);

        Map<String, Double> third = byName(sampler.points(StatsSamples.full(5), 4_000));
        assertThat(third.get("volume/alpha/readBytesPerSecond")).as("a counter that went down").isNaN();
        assertThat(third.get("volume/alpha/latencyMeanUs")).isNaN();
    }

    @Test
    void anIntervalWithoutReadsHasNoHitRatio() {
        // Proves the hit ratio's gap: with reads it is hits over reads of that interval; without, it is null in the
        // JSON, not the last value.
        HistorySampler sampler = new HistorySampler();
        MetricHistory history = new MetricHistory();
        history.record(100, sampler.points(StatsSamples.full(0), 100_000));
        history.record(101, sampler.points(StatsSamples.full(10), 101_000));
        history.record(102, sampler.points(StatsSamples.full(10), 102_000));
        String json = HistoryJson.render(history, 3, 0);
        assertThat(json).contains("\"readHitRatio\":[null,0.5,null]");
    }
}

package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A live {@code /metrics} after real requests: latency histograms by op, build and JVM families, volume health. */
class MetricsScrapeTest {
    private static final Pattern BUCKET = Pattern.compile("^blockcache_request_duration_seconds_bucket"
            + "\\{op=\"([a-z]+)\",volume=\"default\",le=\"([^\"]+)\"} (\\S+)$");

    private RunningCacheSet cache;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    private String metrics() throws Exception {
        return cache.get("/metrics");
    }

    @Test
    void everyOperationHasAHistogramCountingItsRequests() throws Exception {
        // Proves each front-end request lands in its op's histogram: 3 writes, 2 reads, 1 flush, 1 trim counted
        // apart, buckets cumulative up to +Inf = _count, and a positive _sum in seconds.
        for (int i = 0; i < 3; i++) {
            assertThat(cache.write(i * 65536L, 4096)).isEqualTo(IoResult.OK);
        }
        assertThat(cache.read(0, 4096)).isEqualTo(IoResult.OK);
        assertThat(cache.read(1 << 20, 4096)).isEqualTo(IoResult.OK);
        assertThat(cache.io(done -> cache.set.volume("default").flush(done))).isEqualTo(IoResult.OK);
        assertThat(cache.io(done -> cache.set.volume("default").discard(0, 4096, done))).isEqualTo(IoResult.OK);

        String text = metrics();
        Map<String, List<Double>> buckets = new HashMap<>();
        Map<String, Double> infinite = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher bucket = BUCKET.matcher(line);
            if (bucket.matches()) {
                buckets.computeIfAbsent(bucket.group(1), op -> new ArrayList<>())
                        .add(Double.parseDouble(bucket.group(3)));
                if (bucket.group(2).equals("+Inf")) {
                    infinite.put(bucket.group(1), Double.parseDouble(bucket.group(3)));
                }
            }
        }
        assertThat(infinite).containsExactlyInAnyOrderEntriesOf(Map.of("read", 2.0, "write", 3.0, "flush", 1.0,
                "trim", 1.0));
        buckets.forEach((op, counts) -> assertThat(counts).as(op).hasSize(20).isSorted());
        for (String op : List.of("read", "write", "flush", "trim")) {
            assertThat(text).contains("blockcache_request_duration_seconds_count{op=\"" + op + "\",volume=\"default\"} "
                    + infinite.get(op).longValue());
        }
        Matcher sum = Pattern.compile(
                "blockcache_request_duration_seconds_sum\\{op=\"write\",volume=\"default\"} (\\S+)").matcher(text);
        assertThat(sum.find()).isTrue();
        assertThat(Double.parseDouble(sum.group(1))).isGreaterThan(0.0).isLessThan(30.0);
        assertThat(text).contains("# TYPE blockcache_gc_slice_duration_seconds histogram",
                "blockcache_request_duration_seconds_bucket{op=\"read\",volume=\"default\",le=\"1.0E-5\"}");
    }

    @Test
    void everyWritebackPassThatEndedIsInThePassHistogram() throws Exception {
        // Proves writeback passes are timed: once writeback cleaned what was written, the histogram's count equals
        // the passes started (each ended), and at least one.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.write(1 << 20, 64 << 10)).isEqualTo(IoResult.OK);
        cache.setKnob("writeback.default.running", "true");
        cache.awaitOnLoop(() -> cache.set.volume("default").index().extents().dirtySectors() == 0);
        String text = metrics();
        Matcher passes = Pattern.compile("blockcache_writeback_passes_total\\{volume=\"default\"} (\\S+)")
                .matcher(text);
        assertThat(passes.find()).isTrue();
        long started = (long) Double.parseDouble(passes.group(1));
        assertThat(started).isPositive();
        assertThat(text).contains("blockcache_writeback_pass_duration_seconds_count{volume=\"default\"} " + started,
                "blockcache_writeback_pass_duration_seconds_bucket{volume=\"default\",le=\"+Inf\"} " + started);
    }

    @Test
    void buildInfoAndTheJvmsFamiliesAreExported() throws Exception {
        // Proves /metrics carries blockcache_build_info with the Maven version and the process and JVM families of
        // the Prometheus client's instrumentation.
        String text = metrics();
        assertThat(text).containsPattern("blockcache_build_info\\{java_version=\"" + Pattern.quote(
                Runtime.version().toString()) + "\",version=\"[0-9]+\\.[0-9]+\\.[0-9]+[^\"]*\"} 1");
        assertThat(RuntimeMetrics.VERSION).isNotEqualTo("unknown");
        assertThat(text).contains("# TYPE process_cpu_seconds_total counter", "# TYPE process_start_time_seconds gauge",
                "# TYPE jvm_memory_used_bytes gauge", "# TYPE jvm_threads_current gauge",
                "# TYPE jvm_buffer_pool_used_bytes gauge");
    }

    @Test
    void aVolumesHealthFollowsItsBackingDevice() throws Exception {
        // Proves the health gauge: ok at first; degraded with reason backing_disconnected while the remote backing is
        // away; ok again once it is back.
        assertThat(metrics()).contains("blockcache_volume_health{state=\"ok\",volume=\"default\"} 1.0",
                "blockcache_volume_health{state=\"degraded\",volume=\"default\"} 0.0",
                "blockcache_volume_health_reason{reason=\"backing_disconnected\",volume=\"default\"} 0.0");
        cache.remoteBacking.connected = false;
        assertThat(metrics()).contains("blockcache_volume_health{state=\"ok\",volume=\"default\"} 0.0",
                "blockcache_volume_health{state=\"degraded\",volume=\"default\"} 1.0",
                "blockcache_volume_health{state=\"failed\",volume=\"default\"} 0.0",
                "blockcache_volume_health_reason{reason=\"backing_disconnected\",volume=\"default\"} 1.0");
        cache.remoteBacking.connected = true;
        assertThat(metrics()).contains("blockcache_volume_health{state=\"ok\",volume=\"default\"} 1.0");
    }
}

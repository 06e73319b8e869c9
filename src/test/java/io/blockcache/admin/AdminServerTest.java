package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RunningCacheSet cache;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + cache.adminHostPort() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void statsReportWhatTheVolumeDid() throws Exception {
        // Proves /api/stats reflects real traffic: dirty bytes, hits and misses, latency, buckets, placeholders.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.read(0, 16 << 10)).isEqualTo(IoResult.OK);            // 32 sectors hit
        assertThat(cache.read(1 << 20, 8 << 10)).isEqualTo(IoResult.OK);       // 16 sectors miss
        HttpResponse<String> response = send("GET", "/api/stats", null);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow()).isEqualTo("application/json");
        String json = response.body();
        assertThat(json).contains("\"name\":\"default\"", "\"sizeBytes\":" + (16L << 20), "\"mode\":\"writeback\"",
                "\"readHitSectors\":32", "\"readMissSectors\":16", "\"dirtyBytes\":" + (64 << 10),
                "\"bypassedSectors\":0", "\"requestsInFlight\":0", "\"requests\":3", "\"p99Us\":",
                "\"occupancyPercent\":", "\"durableSequence\":", "\"checkpointsWritten\":",
                "\"writeback\":{\"status\":\"not yet\"}", "\"gc\":{\"status\":\"not yet\"}");
        assertThat(json).containsPattern("\"hitRatio\":0\\.666");
        assertThat(json).containsPattern("\"backing\":\\[\\{\"name\":\"default\",\"requestsInFlight\":0,"
                + "\"completedReadSectors\":[1-9]");
        assertThat(json).containsPattern("\"buckets\":\\{\"total\":56,\"free\":[0-9]+,\"open\":[1-9]");
    }

    @Test
    void metricsFollowThePrometheusTextFormat() throws Exception {
        // Proves /metrics: every sample belongs to a family announced by HELP and TYPE lines, names carry units.
        assertThat(cache.write(4096, 8192)).isEqualTo(IoResult.OK);
        HttpResponse<String> response = send("GET", "/metrics", null);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain; version=0.0.4");
        List<String> lines = Arrays.asList(response.body().split("\n"));
        assertThat(lines).contains("blockcache_dirty_bytes{volume=\"default\"} 8192",
                "# TYPE blockcache_read_hit_sectors_total counter",
                "# TYPE blockcache_request_latency_seconds summary",
                "blockcache_request_latency_seconds_count{volume=\"default\"} 1",
                "blockcache_write_cached_sectors_total{volume=\"default\"} 16");
        assertThat(lines).anyMatch(line -> line.matches(
                "blockcache_request_latency_seconds\\{volume=\"default\",quantile=\"0\\.99\"} [0-9.E-]+"));
        String family = null;
        for (String line : lines) {
            if (line.startsWith("# HELP ")) {
                family = line.split(" ")[2];
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                assertThat(line.split(" ")[2]).isEqualTo(family);
                continue;
            }
            assertThat(line).as("sample line").matches("[a-z_]+(\\{[a-z_]+=\"[^\"]*\"(,[a-z_]+=\"[^\"]*\")*})? "
                    + "-?[0-9][0-9.E-]*|NaN");
            String name = line.replaceAll("[{ ].*", "");
            assertThat(name).as("sample of the announced family").startsWith(family);
        }
    }

    @Test
    void knobsCanBeListedReadAndSet() throws Exception {
        // Proves the knob endpoints: list, get, put changes the engine, bad values 400 with what is allowed, 404.
        assertThat(send("GET", "/api/knobs", null).body()).contains("\"name\":\"volume.default.mode\"");
        HttpResponse<String> one = send("GET", "/api/knobs/volume.default.mode", null);
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.body()).contains("\"value\":\"writeback\"");

        HttpResponse<String> set = send("PUT", "/api/knobs/volume.default.mode", "writethrough\n");
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(set.body()).contains("\"value\":\"writethrough\"");
        assertThat(cache.<String>onLoop(done -> done.accept(cache.set.volume("default").mode().name())))
                .isEqualTo("WRITETHROUGH");

        HttpResponse<String> bad = send("PUT", "/api/knobs/volume.default.mode", "fastest");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"error\":\"mode must be one of writeback, writethrough, writearound, none");
        assertThat(send("GET", "/api/knobs/volume.default.mode", null).body()).contains("\"value\":\"writethrough\"");

        HttpResponse<String> unknown = send("PUT", "/api/knobs/no.such.knob", "1");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no knob named \\\"no.such.knob\\\"", "volume.default.mode");
        assertThat(send("GET", "/api/knobs/no.such.knob", null).statusCode()).isEqualTo(404);
        assertThat(send("DELETE", "/api/knobs/volume.default.mode", null).statusCode()).isEqualTo(405);
        assertThat(send("GET", "/nothing-here", null).statusCode()).isEqualTo(404);
    }

    @Test
    void aStoppedLoopIsReportedAs503NotAHang() throws Exception {
        // Proves the HTTP threads never touch engine state themselves: with the loop gone, the API says so.
        cache.loop.close();
        HttpResponse<String> response = send("GET", "/api/stats", null);
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("event loop is not running");
    }

    @Test
    void dashboardPagePollsTheStats() throws Exception {
        // Proves GET / serves the dashboard page, which reads /api/stats.
        HttpResponse<String> page = send("GET", "/", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>blockcache</title>", "fetch('/api/stats')");
    }
}

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
        // Proves /api/stats reflects real traffic: dirty bytes, hits and misses, latency, buckets.
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
                "\"occupancyPercent\":", "\"durableSequence\":", "\"checkpointsWritten\":");
        assertThat(json).doesNotContain("not yet");
        assertThat(json).containsPattern("\"hitRatio\":0\\.666");
        assertThat(json).containsPattern("\"backing\":\\[\\{\"name\":\"default\",\"requestsInFlight\":0,"
                + "\"completedReadSectors\":[1-9]");
        assertThat(json).containsPattern("\"buckets\":\\{\"total\":56,\"free\":[0-9]+,\"open\":[1-9]");
        // The damage map: the 64 KiB write dirtied one region, marked with one map write it waited for.
        assertThat(json).contains("\"damageMap\":{\"regionsMarked\":1,\"regionsCleared\":0,\"markWaits\":1,");
        assertThat(send("GET", "/metrics", null).body())
                .contains("blockcache_damage_map_regions_marked_total{volume=\"default\"} 1");
    }

    @Test
    void statsAndMetricsShowTheMapsConsistentEpochAndAVolumeHeldForAnOrderingSwitch() throws Exception {
        // Proves the two states of an ordered volume reach /api/stats and /metrics: an ordered volume written back and
        // swept says "consistent as of flush epoch E" (E from the map itself); a switch to ordering=none whose flag
        // clear cannot be written (the backing device fails writes) holds the volume, visibly, until a retried clear
        // lands.
        cache.setKnob("writeback.default.ordering", "epochs");
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.io(done -> cache.set.volume("default").flush(done))).isEqualTo(IoResult.OK);
        cache.setKnob("writeback.default.running", "true");
        cache.awaitOnLoop(() -> cache.set.volume("default").index().extents().dirtySectors() == 0);
        assertThat(cache.io(done -> cache.set.volume("default").damageMap().sweep(done))).isEqualTo(IoResult.OK);
        long epoch = cache.<Long>onLoop(done -> done.accept(cache.set.volume("default").damageMap().flaggedEpoch()));
        assertThat(epoch).as("the map is flagged after the sweep").isPositive();
        assertThat(send("GET", "/api/stats", null).body()).contains("\"sweeps\":", "\"consistentAsOfEpoch\":" + epoch
                + "}", "\"orderHeld\":false,");
        assertThat(send("GET", "/metrics", null).body())
                .contains("blockcache_damage_map_consistent_epoch{volume=\"default\"} " + epoch + ".0")
                .contains("blockcache_writeback_order_held{volume=\"default\"} 0.0");

        cache.remoteBacking.failWrites = true;
        cache.setKnob("writeback.default.ordering", "none");
        String held = send("GET", "/api/stats", null).body();
        assertThat(held).contains("\"orderHeld\":true,", "\"consistentAsOfEpoch\":null}");
        assertThat(send("GET", "/metrics", null).body())
                .contains("blockcache_writeback_order_held{volume=\"default\"} 1.0")
                .doesNotContain("blockcache_damage_map_consistent_epoch{");

        cache.remoteBacking.failWrites = false;
        cache.awaitOnLoop(() -> !cache.set.volume("default").orderHeld());
        assertThat(send("GET", "/api/stats", null).body()).contains("\"orderHeld\":false,");
    }

    @Test
    void statsShowWritebackPerVolumeAndGcForTheCache() throws Exception {
        // Proves the writeback and gc objects carry the engine's numbers: paused writeback keeps 64 KiB dirty and
        // nothing written back; a forced GC run shows up with its duration, time since, and bucket counts.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        assertThat(cache.<IoResult>onLoop(done -> cache.set.gc(done::accept))).isEqualTo(IoResult.OK);
        String json = send("GET", "/api/stats", null).body();
        assertThat(json).contains("\"writeback\":{\"running\":false,\"policy\":\"modern\",\"order\":\"lba\","
                        + "\"state\":\"", "\"dirtyBytes\":65536,\"writtenBackSectors\":0,\"backingWriteSectors\":0,"
                        + "\"passes\":0,\"passesEnded\":0,\"keysInFlight\":0,", "\"backingQueueDepth\":0,",
                "\"errors\":{\"total\":0,\"cacheRead\":0,\"checksum\":0,\"backingWrite\":0,\"backingFlush\":0,"
                        + "\"last\":null,\"backingFailure\":null}",
                "\"drain\":{\"id\":0,\"state\":\"none\",");
        // No FLUSH yet, so epoch 1; unordered, so no epochs of dirty data are kept.
        assertThat(json).contains("\"epochs\":{\"ordering\":\"none\",\"current\":1,\"oldestDirty\":null,"
                + "\"dirtyEpochs\":0,\"requestsWaiting\":0,\"waitsTotal\":0,\"orderHeld\":false,\"backingLog\":null,"
                + "\"logGroups\":0}");
        assertThat(json).containsPattern("\"state\":\"(idle|busy)\"");
        // Before the first update (5 s) the rate is bcache's initial 1024 sectors/s; it is never below rate_min 8.
        assertThat(json).containsPattern("\"rateSectorsPerSecond\":([89]|[1-9][0-9]+),\"rate\":\\{\"targetSectors\":"
                + "[0-9]+,\"errorSectors\":-?[0-9]+,\"proportionalSectorsPerSecond\":-?[0-9]+,"
                + "\"integralSectorsPerSecond\":-?[0-9]+,\"changeSectorsPerSecond\":-?[0-9]+,"
                + "\"rateSectorsPerSecond\":[0-9]+,\"fragmentBoostSectorsPerSecond\":[0-9]+,\"integralFrozen\":");
        assertThat(json).containsPattern("\"measuredBackingBytesPerSecond\":[0-9.E]+");
        assertThat(json).containsPattern("\"gc\":\\{\"running\":false,\"runs\":[1-9][0-9]*,"
                + "\"averageDurationMs\":[0-9.E-]+,\"maxDurationMs\":[0-9.E-]+,\"averageIntervalMs\":[0-9.E-]+,"
                + "\"sinceLastMs\":[0-9.E-]+,\"buckets\":\\{\"free\":[1-9][0-9]*,\"reusePending\":[0-9]+,"
                + "\"open\":[1-9][0-9]*,\"clean\":[0-9]+,\"dirty\":[0-9]+,\"emptyWaiting\":[0-9]+,"
                + "\"metadata\":[0-9]+,\"journal\":[1-9][0-9]*},\"bucketsEvicted\":0,\"movedBytes\":[0-9]+,");
        assertThat(json).contains("\"allocationWaits\":0,\"markSlices\":");
    }

    @Test
    void drainEndpointWritesEverythingBackEvenWhilePausedAndReportsIt() throws Exception {
        // Proves POST /api/volumes/{name}/drain answers at once, the drain cleans every dirty byte although writeback
        // is paused (the fixture pauses it, so only the drain can have written), stats and metrics show it done,
        // and the pause holds again afterwards.
        assertThat(cache.write(0, 64 << 10)).isEqualTo(IoResult.OK);
        HttpResponse<String> started = send("POST", "/api/volumes/default/drain", null);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        assertThat(started.body()).isEqualTo("{\"volume\":\"default\",\"drainId\":1,\"joined\":false,"
                + "\"dirtyBytes\":65536,\"state\":\"running\",\"rateMaxBytesPerSecond\":0,\"deadlineEpochMs\":0}\n");
        String json = awaitDrainDone();
        assertThat(json).contains("\"running\":false,", "\"dirtyBytes\":0,\"writtenBackSectors\":128,",
                "\"drain\":{\"id\":1,\"state\":\"done\",\"dirtyBytesLeft\":0,\"writtenBackBytes\":65536,",
                "\"error\":null,\"rateMaxBytesPerSecond\":0,\"rateCeilingBytesPerSecond\":0,\"deadlineEpochMs\":null,"
                        + "\"deadlineInMs\":null,\"neededBytesPerSecond\":0.0,\"deadlineWarning\":null,"
                        + "\"restored\":false,\"finishing\":false}");
        List<String> metrics = Arrays.asList(send("GET", "/metrics", null).body().split("\n"));
        assertThat(metrics).contains("blockcache_writeback_written_bytes_total{volume=\"default\"} 65536.0",
                "blockcache_writeback_draining{volume=\"default\"} 0.0",
                "blockcache_dirty_bytes{volume=\"default\"} 0.0");

        assertThat(cache.write(1 << 20, 8192)).isEqualTo(IoResult.OK);
        assertThat(send("POST", "/api/volumes/default/drain", null).body()).contains("\"drainId\":2");
        assertThat(awaitDrainDone()).contains("\"drain\":{\"id\":2,\"state\":\"done\",\"dirtyBytesLeft\":0,"
                + "\"writtenBackBytes\":8192,");
        assertThat(cache.write(2 << 20, 4096)).isEqualTo(IoResult.OK);
        cache.awaitOnLoop(() -> true);
        assertThat(cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes())))
                .as("paused again after the drain").isEqualTo(4096L);
    }

    /** The stats document once no drain runs; polls with one loop round trip between looks, never a sleep. */
    private String awaitDrainDone() throws Exception {
        for (int attempt = 0; attempt < 2000; attempt++) {
            String json = send("GET", "/api/stats", null).body();
            if (!json.contains("\"state\":\"running\"")) {
                return json;
            }
            cache.awaitOnLoop(() -> true);
        }
        throw new AssertionError("drain never finished");
    }

    @Test
    void drainOfAnUnknownVolumeIs404AndOnlyPostStartsOne() throws Exception {
        // Proves an unknown volume gets 404 with the names there are, GET on the drain path only reports (no drain
        // yet) and starts nothing, and other methods are refused.
        assertThat(cache.write(0, 8192)).isEqualTo(IoResult.OK);
        HttpResponse<String> unknown = send("POST", "/api/volumes/nope/drain", null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no volume named \\\"nope\\\"", "\"volumes\":[\"default\"]");
        HttpResponse<String> status = send("GET", "/api/volumes/default/drain", null);
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).startsWith("{\"volume\":\"default\",\"id\":0,\"state\":\"none\",");
        assertThat(send("DELETE", "/api/volumes/default/drain", null).statusCode()).isEqualTo(405);
        assertThat(send("GET", "/api/volumes/default/drain/pause", null).statusCode()).isEqualTo(405);
        assertThat(send("POST", "/api/volumes/nope/drain/pause", null).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/api/stats", null).body()).contains("\"drain\":{\"id\":0,\"state\":\"none\"");
        assertThat(cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes())))
                .isEqualTo(8192L);
    }

    @Test
    void statsSayWhyWritesWentAroundTheCache() throws Exception {
        // Proves the bypass breakdown reaches /api/stats and /metrics: with a 64 KiB sequential cutoff, a stream of
        // four 32 KiB writes caches the first and sends the rest around (its run reaches the cutoff with the
        // second), counted as sequential.
        cache.setKnob("volume.default.sequential_cutoff_bytes", "65536");
        for (int i = 0; i < 4; i++) {
            assertThat(cache.write(4L << 20 | (long) i << 15, 32 << 10)).isEqualTo(IoResult.OK);
        }
        String stats = send("GET", "/api/stats", null).body();
        assertThat(stats).contains("\"bypassedSectors\":192,\"fillSectors\"")
                .contains("\"bypass\":{\"sequentialSectors\":192,\"congestedSectors\":0,\"occupancySectors\":0,"
                        + "\"noRoomSectors\":0,\"throttledWrites\":0,");
        assertThat(send("GET", "/metrics", null).body())
                .contains("blockcache_bypassed_sequential_bytes_total{volume=\"default\"} 98304.0")
                .contains("blockcache_bypassed_congested_bytes_total{volume=\"default\"} 0.0");
    }

    @Test
    void everyMetricFamilyIsDocumentedInOperations() throws Exception {
        // Proves docs/OPERATIONS.md §7 has a row for every family /metrics exports (a new metric needs its meaning),
        // but the Prometheus client's process and JVM families, whose meaning is the client's (§7 names the module).
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("docs/OPERATIONS.md"));
        List<String> families = Arrays.stream(send("GET", "/metrics", null).body().split("\n"))
                .filter(line -> line.startsWith("# TYPE ")).map(line -> line.split(" ")[2])
                .filter(name -> !name.startsWith("jvm_") && !name.startsWith("process_")).toList();
        assertThat(doc).contains("`prometheus-metrics-instrumentation-jvm`");
        assertThat(families).hasSizeGreaterThan(40);
        assertThat(families).allSatisfy(name -> assertThat(doc).contains("| `" + name + "` |"));
    }

    @Test
    void aRemoteBackingsClientStateIsInStatsAndMetrics() throws Exception {
        // Proves the NBD client's state reaches /api/stats and /metrics: connected or away, breaks, reconnects and
        // the replay log's bytes, as the device reports them at the time of the request.
        cache.remoteBacking.connected = false;
        cache.remoteBacking.breaks = 2;
        cache.remoteBacking.reconnects = 1;
        cache.remoteBacking.replayLogBytes = 65536;
        cache.remoteBacking.requestTimeouts = 3;
        String stats = send("GET", "/api/stats", null).body();
        assertThat(stats).contains("\"remote\":{\"connected\":false,\"state\":\"away: connection refused "
                + "(reconnecting)\",\"breaks\":2,\"reconnects\":1,\"replayLogBytes\":65536,\"requestTimeouts\":3}");
        String metrics = send("GET", "/metrics", null).body();
        assertThat(metrics).contains("blockcache_backing_remote_connected{volume=\"default\"} 0.0",
                "blockcache_backing_remote_breaks_total{volume=\"default\"} 2.0",
                "blockcache_backing_remote_reconnects_total{volume=\"default\"} 1.0",
                "blockcache_backing_remote_replay_log_bytes{volume=\"default\"} 65536.0",
                "blockcache_backing_remote_request_timeouts_total{volume=\"default\"} 3.0");
        cache.remoteBacking.connected = true;
        assertThat(send("GET", "/metrics", null).body()).contains(
                "blockcache_backing_remote_connected{volume=\"default\"} 1.0");
    }

    @Test
    void anS3BackingsCountersAreInStatsAndMetrics() throws Exception {
        // Proves the S3 device's counters reach /api/stats (backing[].s3) and /metrics (each family documented in
        // docs/OPERATIONS.md), as the device reports them.
        cache.remoteBacking.objectStore = new io.blockcache.device.ObjectStoreStats(7, 5, 2, 1, 6, 7L << 22, 20480, 3,
                16, 4, 1, false, "owned by host-a:/cache.img");
        String stats = send("GET", "/api/stats", null).body();
        assertThat(stats).contains("\"s3\":{\"puts\":7,\"gets\":5,\"deletes\":2,\"failures\":1,\"retries\":6,"
                + "\"bytesPut\":29360128,\"bytesGot\":20480,\"stagedChunks\":3,\"stagedChunksMax\":16,"
                + "\"leaseRenewals\":4,\"leaseRenewalFailures\":1,\"fenced\":false,"
                + "\"ownership\":\"owned by host-a:/cache.img\"}");
        String metrics = send("GET", "/metrics", null).body();
        assertThat(metrics).contains("blockcache_backing_s3_requests_total{op=\"put\",volume=\"default\"} 7.0",
                "blockcache_backing_s3_requests_total{op=\"get\",volume=\"default\"} 5.0",
                "blockcache_backing_s3_requests_total{op=\"delete\",volume=\"default\"} 2.0",
                "blockcache_backing_s3_request_failures_total{volume=\"default\"} 1.0",
                "blockcache_backing_s3_request_retries_total{volume=\"default\"} 6.0",
                "blockcache_backing_s3_put_bytes_total{volume=\"default\"} 2.9360128E7",
                "blockcache_backing_s3_get_bytes_total{volume=\"default\"} 20480.0",
                "blockcache_backing_s3_staged_chunks{volume=\"default\"} 3.0",
                "blockcache_backing_s3_lease_renewals_total{volume=\"default\"} 4.0",
                "blockcache_backing_s3_lease_renewal_failures_total{volume=\"default\"} 1.0",
                "blockcache_backing_s3_fenced{volume=\"default\"} 0.0");
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("docs/OPERATIONS.md"));
        Arrays.stream(metrics.split("\n")).filter(line -> line.startsWith("# TYPE blockcache_backing_"))
                .map(line -> line.split(" ")[2]).forEach(name -> assertThat(doc).contains("| `" + name + "` |"));
    }

    @Test
    void reloadAnswersOnlyWithAReloaderAndOnlyToPost() throws Exception {
        // Proves POST /api/reload is refused with a reason when serve has no config file, and other verbs are 405.
        HttpResponse<String> none = send("POST", "/api/reload", "");
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(none.body()).contains("started without a configuration file");
        assertThat(send("GET", "/api/reload", null).statusCode()).isEqualTo(405);
    }

    @Test
    void metricsFollowThePrometheusTextFormat() throws Exception {
        // Proves /metrics: every sample belongs to a family announced by HELP and TYPE lines, names carry units.
        assertThat(cache.write(4096, 8192)).isEqualTo(IoResult.OK);
        HttpResponse<String> response = send("GET", "/metrics", null);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain; version=0.0.4");
        List<String> lines = Arrays.asList(response.body().split("\n"));
        assertThat(lines).contains("blockcache_dirty_bytes{volume=\"default\"} 8192.0",
                "# TYPE blockcache_read_hit_bytes_total counter",
                "# TYPE blockcache_request_latency_seconds summary",
                "blockcache_request_latency_seconds_count{volume=\"default\"} 1",
                "blockcache_write_cached_bytes_total{volume=\"default\"} 8192.0",
                "# TYPE blockcache_writeback_rate_bytes_per_second gauge",
                "blockcache_writeback_written_bytes_total{volume=\"default\"} 0.0",
                "blockcache_writeback_running{volume=\"default\"} 0.0",
                "blockcache_writeback_errors_total{kind=\"backing_write\",volume=\"default\"} 0.0",
                "# TYPE blockcache_gc_duration_max_seconds gauge", "# TYPE blockcache_gc_evictions_total counter",
                "blockcache_gc_evictions_total 0.0", "blockcache_gc_allocation_waits_total 0.0");
        assertThat(lines).anyMatch(line -> line.matches(
                "blockcache_writeback_rate_bytes_per_second\\{volume=\"default\"} [1-9][0-9.E]+"));
        assertThat(lines).anyMatch(line -> line.matches("blockcache_gc_duration_max_seconds [0-9.E-]+"));
        // The names before base units (2026-12-07) stay one release, same samples in their old units.
        assertThat(lines).contains("blockcache_write_cached_sectors_total{volume=\"default\"} 16.0",
                "# TYPE blockcache_gc_duration_seconds gauge");
        assertThat(lines).anyMatch(line -> line.matches("blockcache_gc_duration_seconds\\{stat=\"max\"} [0-9.E-]+"));
        assertThat(lines).anyMatch(line -> line.matches("blockcache_gc_buckets\\{state=\"journal\"} [1-9][0-9]*\\.0"));
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
                    + "(-?[0-9][0-9.E-]*|NaN)");
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
        assertThat(bad.body()).contains("\"error\":\"volume.default.mode: \\\"fastest\\\" is not allowed; allowed: "
                + "writeback, writethrough, writearound, none\"");
        assertThat(send("GET", "/api/knobs/volume.default.mode", null).body()).contains("\"value\":\"writethrough\"");

        HttpResponse<String> ordering = send("PUT", "/api/knobs/writeback.default.ordering", "epochs");
        assertThat(ordering.statusCode()).isEqualTo(200);
        assertThat(cache.<Boolean>onLoop(done -> done.accept(cache.set.volume("default").epochOrdering()))).isTrue();
        HttpResponse<String> badOrdering = send("PUT", "/api/knobs/writeback.default.ordering", "strict");
        assertThat(badOrdering.statusCode()).isEqualTo(400);
        assertThat(badOrdering.body()).contains("writeback.default.ordering: \\\"strict\\\" is not allowed; "
                + "allowed: none, epochs, journaled");

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
        // Proves GET / serves the dashboard page, which reads /api/stats and charts the live numbers on canvases.
        HttpResponse<String> page = send("GET", "/", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>blockcache</title>", "api('/api/stats')", "getContext('2d')",
                "Authorization:'Bearer '+TOKEN", "location.hash",
                // Metrics by their /metrics names, their keys from the generated table (2026-12-07: the page no
                // longer spells keys such as w.writtenBackSectors itself).
                "base(w,'blockcache_writeback_written_bytes_total')", "\"readHitSectors\"", "latency.p99Us",
                "base(v,'blockcache_dirty_bytes')", "s.gc",
                "table('drains'", "d.etaMs", "d.deadlineInMs", "d.deadlineWarning");
    }
}

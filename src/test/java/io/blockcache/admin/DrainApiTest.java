package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoResult;
import io.blockcache.json.JsonWriter;
import io.blockcache.writeback.DrainJob;
import io.blockcache.writeback.DrainState;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The drain-job endpoints: start with limits, status, pause, resume, cancel, refusals, saving and restoring. */
class DrainApiTest {
    private static final long DIRTY_BYTES = 1 << 20;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<List<DrainJobRecord>> saves = new ArrayList<>();
    private RunningCacheSet cache;
    private AdminServer admin;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
        for (int i = 0; i < DIRTY_BYTES / (64 << 10); i++) {
            assertThat(cache.write((long) i * (128 << 10), 64 << 10)).isEqualTo(IoResult.OK);
        }
        admin = adminWithStore(List.of());
    }

    @AfterEach
    void stop() {
        admin.close();
        cache.close();
    }

    /** A second admin server on the fixture's cache set, saving to {@link #saves}, after restoring {@code saved}. */
    private AdminServer adminWithStore(List<DrainJobRecord> saved) throws Exception {
        AdminServer server = new AdminServer(new InetSocketAddress("127.0.0.1", 0), cache.set, cache.cacheDevice,
                cache.backings, jobs -> {
                    synchronized (saves) {
                        saves.add(jobs);
                    }
                }, message -> { });
        server.restoreDrains(saved);
        server.start();
        return server;
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.address().getPort() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private List<DrainJobRecord> lastSave() {
        synchronized (saves) {
            return saves.get(saves.size() - 1);
        }
    }

    private DrainJob job() throws Exception {
        return cache.<DrainJob>onLoop(done -> done.accept(cache.set.writeback("default").drainJob()));
    }

    @Test
    void aCappedDrainCanBePausedResumedAndCancelledAndEveryChangeIsSaved() throws Exception {
        // Proves the life of a job through the API: 202 with the cap, GET shows it running under the cap, pause and
        // resume answer with the new state, cancel leaves the dirty data dirty; each answer comes after its save.
        HttpResponse<String> started = send("POST", "/api/volumes/default/drain?rateMaxBytesPerSecond=65536", null);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        assertThat(started.body()).contains("\"drainId\":1,\"joined\":false,\"dirtyBytes\":1048576,\"state\":"
                + "\"running\",\"rateMaxBytesPerSecond\":65536,");
        assertThat(lastSave()).containsExactly(new DrainJobRecord("default", "running", 65536, 0, null));
        cache.awaitOnLoop(() -> cache.set.writeback("default").counters().sectorsCleaned() > 0);
        HttpResponse<String> status = send("GET", "/api/volumes/default/drain", null);
        assertThat(status.body()).startsWith("{\"volume\":\"default\",\"id\":1,\"state\":\"running\",")
                .contains("\"rateMaxBytesPerSecond\":65536,\"rateCeilingBytesPerSecond\":65536,", "\"restored\":false");

        HttpResponse<String> paused = send("POST", "/api/volumes/default/drain/pause", null);
        assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
        assertThat(paused.body()).contains("\"state\":\"paused\"");
        assertThat(lastSave()).containsExactly(new DrainJobRecord("default", "paused", 65536, 0, null));
        assertThat(send("POST", "/api/volumes/default/drain/pause", null).statusCode()).as("idempotent").isEqualTo(200);
        HttpResponse<String> conflict = send("POST", "/api/volumes/default/drain",
                "{\"rateMaxBytesPerSecond\": 1048576}");
        assertThat(conflict.statusCode()).isEqualTo(409);
        assertThat(conflict.body()).contains("already paused with other limits; cancel it first");
        HttpResponse<String> joined = send("POST", "/api/volumes/default/drain", "");
        assertThat(joined.body()).contains("\"drainId\":1,\"joined\":true,", "\"state\":\"paused\"");

        assertThat(send("POST", "/api/volumes/default/drain/resume", null).body()).contains("\"state\":\"running\"");
        HttpResponse<String> cancelled = send("POST", "/api/volumes/default/drain/cancel", null);
        assertThat(cancelled.statusCode()).isEqualTo(200);
        assertThat(cancelled.body()).contains("\"state\":\"cancelled\"", "\"error\":\"drain cancelled; ");
        assertThat(lastSave()).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo("cancelled"));
        cache.awaitOnLoop(() -> cache.set.writeback("default").keysInFlight() == 0);
        long left = cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes()));
        assertThat(left).isPositive().isLessThan(DIRTY_BYTES);
        HttpResponse<String> nothing = send("POST", "/api/volumes/default/drain/cancel", null);
        assertThat(nothing.statusCode()).isEqualTo(409);
        assertThat(nothing.body()).contains("no drain of this volume to cancel (the last one is cancelled)");
    }

    @Test
    void aDeadlineThatCannotBeMetIsRefusedWithTheRateItNeeds() throws Exception {
        // Proves 422: 1 MiB in 10 ms needs 104857600 B/s, above the backing device's 20 MB/s; nothing starts. Bad
        // limits are 400 with what is wrong.
        HttpResponse<String> refused = send("POST", "/api/volumes/default/drain", "{\"deadlineSeconds\": 0.01}");
        assertThat(refused.statusCode()).isEqualTo(422);
        // Loop time runs on between the request and the check (by how much depends on the machine's load), so the
        // needed rate is at least the exact 104857600 B/s, never below it.
        assertThat(refused.body()).containsPattern("^\\{\"error\":\"deadline cannot be met: 1.0 MiB dirty in 0.0 s"
                + " needs [0-9]+\\.[0-9] MiB/s, more than the 19.1 MiB/s the backing device has shown it can write\","
                + "\"neededBytesPerSecond\":[0-9.]+E[89],\"availableBytesPerSecond\":2.0E7}");
        java.util.regex.Matcher needed = java.util.regex.Pattern.compile("\"neededBytesPerSecond\":([0-9.E]+)")
                .matcher(refused.body());
        assertThat(needed.find()).isTrue();
        assertThat(Double.parseDouble(needed.group(1))).isGreaterThanOrEqualTo(104_857_600.0);
        assertThat(job()).isNull();
        assertThat(send("POST", "/api/volumes/default/drain?deadlineSeconds=soon", null).body())
                .contains("deadlineSeconds must be a number");
        assertThat(send("POST", "/api/volumes/default/drain", "{\"rateMax\": 5}").statusCode()).isEqualTo(400);
        assertThat(send("POST", "/api/volumes/default/drain?rateMaxBytesPerSecond=100", null).body())
                .contains("at least one sector (512) per second");
        HttpResponse<String> accepted = send("POST", "/api/volumes/default/drain?deadlineSeconds=3600", null);
        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(send("GET", "/api/volumes/default/drain", null).body()).containsPattern(
                "\"deadlineEpochMs\":[1-9][0-9]{12},\"deadlineInMs\":3[0-9]{6},");
    }

    @Test
    void savedJobsAreTakenUpByTheNextServer() throws Exception {
        // Proves restore: a running job runs again under its cap and says it was restored, a paused one stays paused,
        // a cancelled one is only reported; jobs of unknown volumes are dropped with a line saying so.
        admin.close();
        admin = adminWithStore(List.of(new DrainJobRecord("default", "paused", 65536, 0, null),
                new DrainJobRecord("gone", "running", 0, 0, null)));
        assertThat(job().state()).isEqualTo(DrainState.PAUSED);
        assertThat(job().limits().rateMaxBytesPerSecond()).isEqualTo(65536);
        assertThat(send("GET", "/api/volumes/default/drain", null).body()).contains("\"state\":\"paused\"",
                "\"restored\":true");
        send("POST", "/api/volumes/default/drain/cancel", null);

        admin.close();
        long deadlineMs = System.currentTimeMillis() + 3_600_000;
        List<String> lines = new ArrayList<>();
        admin = new AdminServer(new InetSocketAddress("127.0.0.1", 0), cache.set, cache.cacheDevice, cache.backings,
                jobs -> { }, message -> { });
        lines.addAll(admin.restoreDrains(List.of(new DrainJobRecord("default", "running", 65536, deadlineMs, null),
                new DrainJobRecord("gone", "running", 0, 0, null))));
        admin.start();
        assertThat(lines).containsExactly("resuming the drain of \"default\", rate cap 65536 B/s, deadline "
                        + java.time.Instant.ofEpochMilli(deadlineMs) + ", " + (DIRTY_BYTES - 0) + " dirty bytes",
                "drain job of \"gone\" dropped: no such volume any more");
        assertThat(job().state()).isEqualTo(DrainState.RUNNING);
        assertThat(send("GET", "/api/volumes/default/drain", null).body()).contains("\"state\":\"running\"",
                "\"restored\":true", "\"deadlineEpochMs\":" + deadlineMs);
    }

    @Test
    void theStatusSaysWhenAJobIsFinishingAndOnlyThen() {
        // Proves the status object carries DrainJob.finishing(): a job that still reads "running" but can no longer
        // be paused or cancelled says so, instead of leaving an operator to learn it from a 409.
        DrainSnapshot finishing = new DrainSnapshot(3, "running", 0, DIRTY_BYTES, 1e6, 0, null, 0, 0, 0, 0, 0.0, null,
                false, true);
        assertThat(json(finishing)).contains("\"state\":\"running\"", "\"restored\":false,\"finishing\":true}");
        assertThat(json(DrainSnapshot.NONE)).contains("\"state\":\"none\"", "\"finishing\":false}");
    }

    private static String json(DrainSnapshot snapshot) {
        JsonWriter json = new JsonWriter().beginObject();
        StatsJson.drainFields(json, snapshot);
        return json.endObject().toString();
    }

    @Test
    void recordsRefuseStatesTheyCannotHold() {
        // Proves the saved form validates itself, so a damaged file cannot smuggle in a state.
        assertThatThrownBy(() -> new DrainJobRecord("v", "sleeping", 0, 0, null))
                .hasMessageContaining("must be one of [running, paused, cancelled, done, failed]");
        assertThat(DrainRequest.parse("rateMaxBytesPerSecond=1024", "{ \"deadlineSeconds\" : 60 }"))
                .isEqualTo(new DrainRequest(1024, 60));
    }
}

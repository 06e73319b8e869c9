package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /api/volumes/NAME/prefetch}: its answers, and what it refuses. */
class PrefetchApiTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RunningCacheSet cache;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
    }

    @AfterEach
    void stop() {
        cache.close();
        http.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + cache.adminHostPort() + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theEndpointAnswersStartsAndRefuses() throws Exception {
        // Proves the API: "none" before any job; 202 with the status for a start with units in the query; GET then
        // shows the job done with every byte filled; 400 for an unknown parameter or a range past the end; 404 for an
        // unknown volume; 405 for PUT; 409 for a cancel with nothing running.
        String path = "/api/volumes/default/prefetch";
        assertThat(send("GET", path).body()).contains("\"state\":\"none\"");
        HttpResponse<String> started = send("POST", path + "?offset=1M&length=1M&rate=512M%2Fs");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        assertThat(started.body()).contains("\"id\":1", "\"offsetBytes\":1048576", "\"lengthBytes\":1048576",
                "\"rateMaxBytesPerSecond\":536870912");
        cache.awaitOnLoop(() -> cache.set.volume("default").stats().fillSectors() >= 2048);
        String done = cache.get(path); // the job ends in the task after its last fill: polled
        long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!done.contains("\"state\":\"done\"") && System.nanoTime() < deadlineNs) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            done = cache.get(path);
        }
        assertThat(done).contains("\"state\":\"done\"", "\"doneBytes\":1048576", "\"filledBytes\":1048576");
        assertThat(send("POST", path + "?speed=1").statusCode()).isEqualTo(400);
        assertThat(send("POST", path + "?offset=16M&length=1M").body()).contains("inside the volume");
        assertThat(send("POST", "/api/volumes/nope/prefetch").statusCode()).isEqualTo(404);
        assertThat(send("PUT", path).statusCode()).isEqualTo(405);
        assertThat(send("POST", path + "/cancel").statusCode()).isEqualTo(409);
    }
}

package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/** What the backing interop tests ask of a running {@code serve}: its stats, and the CLI as a child JVM. */
final class ServeAdmin {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();
    /** Pause between two polls of the stats: one HTTP round trip apart is enough to see writeback move. */
    private static final long POLL_PERIOD_MS = 20;

    private ServeAdmin() {
    }

    /** The command line of {@code blockcache ARGS} on this test's JVM and class path. */
    static List<String> javaCli(String... args) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                System.getProperty("java.class.path"), "io.blockcache.cli.Main"));
        command.addAll(Arrays.asList(args));
        return command;
    }

    /** Sends {@code method path} to serve's admin API and SIGKILLs serve {@code delayMs} later. */
    static void killDuring(ServeProcess serve, String method, String path, long delayMs) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        var answer = HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        try {
            answer.get(delayMs, java.util.concurrent.TimeUnit.MILLISECONDS); // the fault's timing, not a wait for state
        } catch (java.util.concurrent.TimeoutException stillRunning) {
            // killed below in the middle of it
        }
        serve.killMinusNine();
    }

    /** {@code GET /api/stats} of {@code serve}, asserting 200. */
    static String stats(ServeProcess serve) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + "/api/stats")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /**
     * Sets a knob through {@code PUT /api/knobs/NAME}, asserting 200: a round trip of milliseconds, where the CLI
     * (a child JVM) takes seconds on a loaded machine, long enough to miss a window the test waits for.
     */
    static void setKnob(ServeProcess serve, String name, String value) throws Exception {
        setKnob(serve, name, value, Duration.ofSeconds(10));
    }

    /** {@link #setKnob(ServeProcess, String, String)} with a bound of its own on the request. */
    static void setKnob(ServeProcess serve, String name, String value, Duration timeout) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + "/api/knobs/" + name)).timeout(timeout)
                .PUT(HttpRequest.BodyPublishers.ofString(value)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    /**
     * Starts a drain of {@code volume} through {@code POST /api/volumes/NAME/drain}, asserting 202; its drain id. The
     * request may take {@code timeout}.
     */
    static long startDrain(ServeProcess serve, String volume, Duration timeout) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + "/api/volumes/" + volume + "/drain")).timeout(timeout)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        return JSON.readTree(response.body()).get("drainId").asLong();
    }

    /**
     * Polls {@code GET /api/volumes/NAME/drain} until drain {@code drainId} (or a later one) is done, at most
     * {@code wait} (each request at most {@code timeout}); fails if it failed or was cancelled, or naming its last
     * state.
     */
    static void awaitDrainDone(ServeProcess serve, String volume, long drainId, Duration wait, Duration timeout)
            throws Exception {
        long endNs = System.nanoTime() + wait.toNanos();
        String last = null;
        while (System.nanoTime() < endNs) {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://"
                    + serve.adminHostPort() + "/api/volumes/" + volume + "/drain")).timeout(timeout)
                    .build(), HttpResponse.BodyHandlers.ofString());
            last = response.body();
            assertThat(response.statusCode()).as(last).isEqualTo(200);
            com.fasterxml.jackson.databind.JsonNode status = JSON.readTree(last);
            long id = status.path("id").asLong();
            String state = status.path("state").asText();
            if (id > drainId || (id == drainId && state.equals("done"))) {
                return;
            }
            if (id == drainId && (state.equals("failed") || state.equals("cancelled"))) {
                throw new AssertionError("drain #" + drainId + " of " + volume + " ended " + state + ": " + last);
            }
            Thread.sleep(POLL_PERIOD_MS); // polls a child process's HTTP API; bounded by wait
        }
        throw new AssertionError("drain #" + drainId + " of " + volume + " not done after " + wait + "; last "
                + last + "\n--- serve\n" + serve.log());
    }

    /** Polls the stats until {@code condition} holds, at most {@code wait}; fails naming {@code what}. */
    static String awaitStats(ServeProcess serve, Predicate<String> condition, String what, Duration wait)
            throws Exception {
        long endNs = System.nanoTime() + wait.toNanos();
        String last = null;
        while (System.nanoTime() < endNs) {
            last = stats(serve);
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(POLL_PERIOD_MS); // polls a child process's HTTP API; bounded by wait
        }
        throw new AssertionError("serve did not " + what + "; last stats " + last + "\n--- serve\n" + serve.log());
    }
}

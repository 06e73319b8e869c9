package io.blockcache.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code bench nbd} asks of a running {@code blockcache serve} through its admin API: set a knob, and drain
 * the volume (wait until every dirty extent is written back and clean). The bench needs no more of the API, so it
 * reads the two answers it needs by pattern, as {@link FioJson} does.
 */
final class ServeAdmin {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** A drain of up to 1 GiB of random 4 KiB extents to a file: minutes at worst. */
    private static final Duration DRAIN_WAIT_MAX = Duration.ofMinutes(10);
    private static final long POLL_PERIOD_MS = 200;
    /** Longest wait for serve to open its files before its stats answer. */
    private static final Duration OPEN_WAIT_MAX = Duration.ofMinutes(2);
    private static final Pattern DRAIN_ID = Pattern.compile("\"drainId\"\\s*:\\s*([0-9]+)");
    private static final Pattern BYPASSED = Pattern.compile("\"bypassedSectors\"\\s*:\\s*([0-9]+)");
    private static final Pattern DRAIN = Pattern.compile(
            "\"drain\"\\s*:\\s*\\{\\s*\"id\"\\s*:\\s*([0-9]+)\\s*,\\s*\"state\"\\s*:\\s*\"([a-z]+)\"");

    private final String hostPort;
    private final String volume;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    ServeAdmin(String hostPort, String volume) {
        this.hostPort = hostPort;
        this.volume = volume;
    }

    /** Sets a live knob ({@code volume.NAME.x} or {@code writeback.NAME.x}; {@code NAME} is put in for us). */
    void set(String knobPattern, String value) throws IOException, InterruptedException {
        String name = knobPattern.replace("NAME", volume);
        HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/api/knobs/" + name))
                .PUT(HttpRequest.BodyPublishers.ofString(value)));
        if (answer.statusCode() != 200) {
            throw new IOException("setting " + name + " = " + value + ": HTTP " + answer.statusCode() + " "
                    + answer.body());
        }
    }

    /** The sectors the (first) volume has written around the cache since the server started. */
    long bypassedSectors() throws IOException, InterruptedException {
        String stats = send(HttpRequest.newBuilder(uri("/api/stats")).GET()).body();
        Matcher bypassed = BYPASSED.matcher(stats);
        if (!bypassed.find()) {
            throw new IOException("no bypassedSectors in /api/stats: " + stats);
        }
        return Long.parseLong(bypassed.group(1));
    }

    /**
     * What a sustained run samples of the (first) volume: dirty data and buckets in use as the throttle and the
     * cutoffs see them (percent), writes the throttle held, and write sectors sent around the cache (all reasons).
     */
    record Sample(double dirtyDataPercent, double inUsePercent, long throttledWrites, long bypassedSectors) {
    }

    /** One {@link Sample} from {@code /api/stats}. */
    Sample sample() throws IOException, InterruptedException {
        String stats = openStats();
        return new Sample(number(stats, "dirtyDataPercent"), number(stats, "inUsePercent"),
                (long) number(stats, "throttledWrites"), (long) number(stats, "bypassedSectors"));
    }

    /** The (first) volume's dirty bytes now. */
    double dirtyBytes() throws IOException, InterruptedException {
        return number(openStats(), "dirtyBytes");
    }

    /** {@code /api/stats} once serve has opened its files (it answers 503 until then), waiting a bounded time. */
    private String openStats() throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + OPEN_WAIT_MAX.toNanos();
        while (true) {
            HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/api/stats")).GET());
            boolean open = answer.statusCode() == 200 && answer.body().contains("\"bypass\"");
            if (open || System.nanoTime() > deadlineNs) {
                return answer.body();
            }
            Thread.sleep(POLL_PERIOD_MS); // benchmark harness, not engine code
        }
    }

    private static double number(String json, String field) throws IOException {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(-?[0-9.eE+-]+)").matcher(json);
        if (!m.find()) {
            throw new IOException("no " + field + " in /api/stats: "
                    + json.substring(0, Math.min(json.length(), 600)));
        }
        return Double.parseDouble(m.group(1));
    }

    /** Starts a drain of the volume and returns once it is done (clean and durable). */
    void drain() throws IOException, InterruptedException {
        HttpResponse<String> started = send(HttpRequest.newBuilder(uri("/api/volumes/" + volume + "/drain"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        Matcher id = DRAIN_ID.matcher(started.body());
        if (started.statusCode() != 202 || !id.find()) {
            throw new IOException("drain of " + volume + ": HTTP " + started.statusCode() + " " + started.body());
        }
        long drainId = Long.parseLong(id.group(1));
        long deadlineNs = System.nanoTime() + DRAIN_WAIT_MAX.toNanos();
        while (System.nanoTime() < deadlineNs) {
            String stats = send(HttpRequest.newBuilder(uri("/api/stats")).GET()).body();
            Matcher drain = DRAIN.matcher(stats);
            if (!drain.find()) {
                throw new IOException("no drain state in /api/stats: " + stats);
            }
            String state = drain.group(2);
            if (state.equals("failed")) {
                throw new IOException("drain of " + volume + " failed: " + stats);
            }
            // A newer drain can only have started once ours ended.
            if (state.equals("done") || Long.parseLong(drain.group(1)) > drainId) {
                return;
            }
            Thread.sleep(POLL_PERIOD_MS); // benchmark harness, not engine code
        }
        throw new IOException("drain of " + volume + " did not finish within " + DRAIN_WAIT_MAX);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://" + hostPort + path);
    }
}

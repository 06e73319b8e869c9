package io.blockcache.sim;

import io.blockcache.loop.Prng;
import java.util.ArrayDeque;

/**
 * The timing of an object store's requests (GET and PUT) as {@link ObjectStoreModel} issues them: at most
 * {@link ObjectStoreConfig#requestsInFlightMax()} in flight (more wait in order), each with a first-byte latency
 * drawn from a seeded heavy-tailed distribution, a body that moves at one request's rate, and a shared link per
 * direction booked in order at the store's bandwidth cap (as {@code SsdModel} books its link).
 *
 * <p>A PUT sends its body first and then waits for the answer; a GET waits for the first byte and then receives the
 * body. Thread rule: the simulation driver's thread.
 */
final class StoreRequests {
    /** Schedules work on the owning device's loop, guarded by its power epoch. */
    interface Scheduler {
        long nowNs();

        void after(long delayNs, Runnable action);
    }

    private final ObjectStoreConfig config;
    private final Scheduler scheduler;
    private final Prng latency;
    // Requests waiting for a free slot, in issue order: bounded by the staged chunks (one upload each) plus the
    // device's reads in flight.
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private int inFlight;
    private long uploadFreeNs;
    private long downloadFreeNs;
    private long puts;
    private long gets;
    private long putBytes;
    private long getBytes;
    private long storedBytes;

    private record Pending(boolean put, long bytes, Runnable done) {
    }

    StoreRequests(ObjectStoreConfig config, Scheduler scheduler, Prng latency) {
        this.config = config;
        this.scheduler = scheduler;
        this.latency = latency;
    }

    /** Issues a PUT of {@code bytes}; {@code done} runs when the store has answered (the object is durable). */
    void put(long bytes, Runnable done) {
        issue(new Pending(true, bytes, done));
    }

    /** Issues a GET of {@code bytes} (a whole chunk, or a range of one); {@code done} runs when the body is in. */
    void get(long bytes, Runnable done) {
        issue(new Pending(false, bytes, done));
    }

    /** Forgets every request: the power is gone (their completions were scheduled under the old epoch). */
    void reset() {
        waiting.clear();
        inFlight = 0;
        uploadFreeNs = 0;
        downloadFreeNs = 0;
    }

    long puts() {
        return puts;
    }

    long gets() {
        return gets;
    }

    long putBytes() {
        return putBytes;
    }

    long getBytes() {
        return getBytes;
    }

    long storedBytes() {
        return storedBytes;
    }

    private void issue(Pending request) {
        if (inFlight < config.requestsInFlightMax()) {
            start(request);
        } else {
            waiting.add(request);
        }
    }

    private void start(Pending request) {
        inFlight++;
        long nowNs = scheduler.nowNs();
        long firstByteNs = drawLatencyNs();
        long bodyNs = request.bytes() * 1_000_000_000L / config.requestBytesPerSecond();
        if (request.put()) {
            puts++;
            putBytes += request.bytes();
            // The body goes first, booked on the upload link now; the answer comes one latency after it is sent.
            long linkStartNs = Math.max(nowNs, uploadFreeNs);
            uploadFreeNs = linkStartNs + request.bytes() * 1_000_000_000L / config.uploadBytesPerSecond();
            long doneNs = Math.max(uploadFreeNs, nowNs + bodyNs) + firstByteNs;
            scheduler.after(doneNs - nowNs, () -> finish(request));
        } else {
            gets++;
            getBytes += request.bytes();
            // The body starts one latency later; it is booked on the download link only then, so that links are
            // booked in time order (booking now would let a slow request hold the link for faster ones after it).
            scheduler.after(firstByteNs, () -> {
                long bodyStartNs = scheduler.nowNs();
                long linkStartNs = Math.max(bodyStartNs, downloadFreeNs);
                downloadFreeNs = linkStartNs + request.bytes() * 1_000_000_000L / config.downloadBytesPerSecond();
                long doneNs = Math.max(downloadFreeNs, bodyStartNs + bodyNs);
                scheduler.after(doneNs - bodyStartNs, () -> finish(request));
            });
        }
    }

    private void finish(Pending request) {
        inFlight--;
        if (request.put()) {
            storedBytes += request.bytes();
        }
        if (!waiting.isEmpty()) {
            start(waiting.poll());
        }
        request.done().run();
    }

    /** Base plus a Lomax draw, {@code scale × (U^(−1/shape) − 1)}, cut at the maximum. */
    private long drawLatencyNs() {
        double uniform = 1.0 - latency.nextDouble(); // in (0, 1]: no infinite draw
        double tailNs = config.latencyTailScaleNs() * (Math.pow(uniform, -1.0 / config.latencyTailShape()) - 1.0);
        return (long) Math.min(config.latencyMaxNs(), config.latencyBaseNs() + tailNs);
    }
}

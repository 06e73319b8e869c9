package io.blockcache.backing;

import io.blockcache.device.CompletionBatcher;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The I/O threads of an {@link S3Device}: runs each blocking S3 call (a PUT, GET or DELETE of the SDK's blocking
 * client) on one of {@code ioThreads} threads and hands its outcome back to the owning loop through a
 * {@link CompletionBatcher}; counts the calls by kind, their retries, failures and bytes; and holds the fence that
 * stops every PUT and DELETE once another cache took the volume over.
 *
 * <p><b>Retries.</b> A call that failed in a way that may pass ({@link S3Store.Transient}: a broken or timed-out
 * connection, a 5xx, throttling), after the SDK's own attempts, is run again after a delay of {@link S3Backoff}, on
 * the loop's timer and in loop time, until the retry time has passed since its first attempt (the last retry starts
 * at that moment at the latest, and there is always one if the retry time is not 0); only then does its caller see
 * the error. The caller's state waits meanwhile (a
 * PUT's chunk stays staged and in flight, so no later PUT of it overtakes the retry, which sends the same bytes). A
 * fenced volume, a closed device and other refusals are not retried.
 *
 * <p>The executor's queue is bounded by its producers: reads and discards by the engine's requests in flight,
 * PUTs and GETs of old chunks by the staging bound ({@link S3Device#STAGING_CHUNKS_MAX}).
 *
 * <p>Threads: {@link #submit} and {@link #close} on the loop's thread; the counters and {@link #fence} from any.
 */
final class S3Io {
    /** What a call does, for its counters; PUTs and DELETEs change the volume, so the fence stops them. */
    enum Kind { PUT, GET, DELETE }

    /** A blocking S3 call for an I/O thread. */
    @FunctionalInterface
    interface S3Call {
        void run() throws IOException;
    }

    private final EventLoop loop;
    private final String where;
    private final long retryTimeNs;
    private final S3Backoff backoff;
    private final ExecutorService io;
    private final CompletionBatcher completions;
    private final AtomicLong puts = new AtomicLong();
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong putFailures = new AtomicLong();
    private final AtomicLong bytesPut = new AtomicLong();
    private final AtomicLong bytesGot = new AtomicLong();
    private volatile String fencedReason;
    private boolean closed;

    /**
     * @param retryTimeNs how long after its first attempt a failed call may still be retried, in ns of loop time
     * @param seed the seed of the retries' jitter
     */
    S3Io(EventLoop loop, String where, int ioThreads, long retryTimeNs, long seed) {
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("I/O threads must be 1..256: " + ioThreads);
        }
        if (retryTimeNs < 0) {
            throw new IllegalArgumentException("the retry time must not be negative: " + retryTimeNs + " ns");
        }
        this.loop = loop;
        this.where = where;
        this.retryTimeNs = retryTimeNs;
        this.backoff = new S3Backoff(seed);
        AtomicInteger threadNumber = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(ioThreads, task -> {
            Thread thread = new Thread(task, "blockcache-s3-io-" + threadNumber.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        this.completions = new CompletionBatcher(loop);
    }

    /**
     * Runs {@code call} on an I/O thread, retrying it while it fails transiently and the retry time lasts; its final
     * outcome comes back on the loop as {@code then} ({@link IoStatus#CLOSED} once closed). A PUT or DELETE after
     * {@link #fence} fails without reaching the store. Thread rule: the loop's thread.
     *
     * @param bytes the bytes the call moves (body of a PUT, range of a GET), for the counters
     */
    void submit(Kind kind, long bytes, S3Call call, IoCallback then) {
        attempt(new Call(kind, bytes, call, then, loop.nowNs()), 0);
    }

    /** One S3 call and what waits for it, with the loop time of its first attempt. */
    private record Call(Kind kind, long bytes, S3Call body, IoCallback then, long firstAttemptNs) {
    }

    private void attempt(Call call, int retriesDone) {
        try {
            io.execute(() -> {
                IoResult result;
                boolean transientFailure = false;
                try {
                    if (call.kind() != Kind.GET) {
                        checkNotFenced();
                    }
                    call.body().run();
                    count(call.kind(), call.bytes());
                    result = IoResult.OK;
                } catch (S3Store.Transient e) {
                    transientFailure = true;
                    result = IoResult.error(IoStatus.IO_ERROR, String.valueOf(e.getMessage()));
                } catch (IOException | RuntimeException e) {
                    result = IoResult.error(IoStatus.IO_ERROR, String.valueOf(e.getMessage()));
                }
                boolean retryable = transientFailure;
                completions.deliver(outcome -> ended(call, retriesDone, outcome, retryable), result);
            });
        } catch (RejectedExecutionException stopped) {
            call.then().complete(closedResult());
        }
    }

    /** On the loop: hands the outcome on, or schedules the next attempt. */
    private void ended(Call call, int retriesDone, IoResult outcome, boolean retryable) {
        if (closed) {
            call.then().complete(closedResult());
            return;
        }
        if (outcome.ok()) {
            call.then().complete(outcome);
            return;
        }
        long leftNs = retryTimeNs - (loop.nowNs() - call.firstAttemptNs());
        // At least one retry of our own whatever the first attempt took: the SDK's attempts alone outlasted a short
        // retry time on a loaded machine (S3DeviceTest, 1 s), and then none was made at all.
        boolean inTime = leftNs > 0 || (retriesDone == 0 && retryTimeNs > 0);
        if (retryable && fencedReason == null && inTime) {
            // The last retry comes at the end of the retry time at the latest: a request fails no sooner than that.
            long delayNs = Math.min(backoff.delayNs(retriesDone), Math.max(0, leftNs));
            retries.incrementAndGet();
            loop.schedule(delayNs, () -> {
                if (closed) {
                    call.then().complete(closedResult());
                } else {
                    attempt(call, retriesDone + 1);
                }
            });
            return;
        }
        failures.incrementAndGet();
        if (call.kind() == Kind.PUT) {
            putFailures.incrementAndGet();
        }
        call.then().complete(retriesDone == 0 ? outcome : IoResult.error(outcome.status(), outcome.message()
                + " (failed again after " + retriesDone + " retries over "
                + (loop.nowNs() - call.firstAttemptNs()) / 1_000_000_000L + " s)"));
    }

    private void count(Kind kind, long bytes) {
        switch (kind) {
            case PUT -> {
                puts.incrementAndGet();
                bytesPut.addAndGet(bytes);
            }
            case GET -> {
                gets.incrementAndGet();
                bytesGot.addAndGet(bytes);
            }
            case DELETE -> deletes.incrementAndGet();
        }
    }

    private void checkNotFenced() throws IOException {
        String reason = fencedReason;
        if (reason != null) {
            throw new IOException(reason);
        }
    }

    /** Fails every PUT and DELETE from now on, with {@code reason}; any thread. */
    void fence(String reason) {
        fencedReason = reason;
    }

    /** Why PUTs and DELETEs fail, or null while they may run; any thread. */
    String fencedReason() {
        return fencedReason;
    }

    /** True after {@link #close}. */
    boolean closed() {
        return closed;
    }

    /** The outcome of everything asked of a closed device. */
    IoResult closedResult() {
        return IoResult.error(IoStatus.CLOSED, where + " is closed");
    }

    /** Nothing new starts; calls in flight finish (or fail) and report {@link IoStatus#CLOSED}. */
    void close() {
        closed = true;
        io.shutdown();
    }

    long puts() {
        return puts.get();
    }

    long gets() {
        return gets.get();
    }

    long deletes() {
        return deletes.get();
    }

    long failures() {
        return failures.get();
    }

    /** Attempts repeated after a transient failure so far; any thread. */
    long retries() {
        return retries.get();
    }

    long putFailures() {
        return putFailures.get();
    }

    long bytesPut() {
        return bytesPut.get();
    }

    long bytesGot() {
        return bytesGot.get();
    }
}

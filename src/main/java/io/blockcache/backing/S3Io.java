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
 * {@link CompletionBatcher}; counts the calls by kind, their failures and bytes; and holds the fence that stops
 * every PUT and DELETE once another cache took the volume over.
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

    private final String where;
    private final ExecutorService io;
    private final CompletionBatcher completions;
    private final AtomicLong puts = new AtomicLong();
    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong putFailures = new AtomicLong();
    private final AtomicLong bytesPut = new AtomicLong();
    private final AtomicLong bytesGot = new AtomicLong();
    private volatile String fencedReason;
    private boolean closed;

    S3Io(EventLoop loop, String where, int ioThreads) {
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("I/O threads must be 1..256: " + ioThreads);
        }
        this.where = where;
        AtomicInteger threadNumber = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(ioThreads, task -> {
            Thread thread = new Thread(task, "blockcache-s3-io-" + threadNumber.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        this.completions = new CompletionBatcher(loop);
    }

    /**
     * Runs {@code call} on an I/O thread; its outcome comes back on the loop as {@code then} ({@link IoStatus#CLOSED}
     * once closed). A PUT or DELETE after {@link #fence} fails without reaching the store.
     *
     * @param bytes the bytes the call moves (body of a PUT, range of a GET), for the counters
     */
    void submit(Kind kind, long bytes, S3Call call, IoCallback then) {
        try {
            io.execute(() -> {
                IoResult result;
                try {
                    if (kind != Kind.GET) {
                        checkNotFenced();
                    }
                    call.run();
                    count(kind, bytes);
                    result = IoResult.OK;
                } catch (IOException | RuntimeException e) {
                    failures.incrementAndGet();
                    if (kind == Kind.PUT) {
                        putFailures.incrementAndGet();
                    }
                    result = IoResult.error(IoStatus.IO_ERROR, String.valueOf(e.getMessage()));
                }
                completions.deliver(outcome -> then.complete(closed ? closedResult() : outcome), result);
            });
        } catch (RejectedExecutionException stopped) {
            then.complete(closedResult());
        }
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

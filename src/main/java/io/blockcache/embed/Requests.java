package io.blockcache.embed;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.RealLoop;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Carries requests from application threads onto a cache's loop and their outcomes back as futures, with a bound
 * on how many are in flight. A future is completed on the completion executor, never on the loop thread, and
 * exactly once: by the engine's callback, or by {@link #failAll} when the loop has stopped.
 *
 * <p>Thread rule: any thread; the callbacks it hands the engine run on the loop.
 */
final class Requests {
    private final EventLoop loop;
    private final Executor completions;
    private final int inFlightMax;
    private final Semaphore permits;
    /** Futures in flight and what each request was, for the message if the loop stops under them. */
    private final Map<CompletableFuture<Void>, String> pending = new ConcurrentHashMap<>();
    private volatile String refusal;

    Requests(EventLoop loop, Executor completions, int inFlightMax) {
        this.loop = loop;
        this.completions = completions;
        this.inFlightMax = inFlightMax;
        this.permits = new Semaphore(inFlightMax);
    }

    /**
     * Runs {@code operation} on the loop with a callback that completes the returned future. Blocks the caller
     * only while {@code inFlightMax} requests are already in flight (back-pressure).
     *
     * @param what names the request in an error message, e.g. "write of 4096 bytes at 8192"
     */
    CompletableFuture<Void> submit(String what, Consumer<IoCallback> operation) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        String refused = refusal;
        if (refused != null) {
            future.completeExceptionally(new BlockCacheException(what + ": " + refused));
            return future;
        }
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.completeExceptionally(new BlockCacheException(what + ": interrupted while waiting for one of the "
                    + inFlightMax + " request slots"));
            return future;
        }
        pending.put(future, what);
        try {
            loop.execute(() -> operation.accept(result -> finish(future, what, result)));
        } catch (IllegalStateException stopped) { // the loop stopped meanwhile: closed or failed
            finish(future, what, IoResult.error(IoStatus.CLOSED, stopped.getMessage()));
        }
        return future;
    }

    private void finish(CompletableFuture<Void> future, String what, IoResult result) {
        if (pending.remove(future) == null) {
            return; // already failed by failAll
        }
        permits.release();
        Runnable completion = result.ok() ? () -> future.complete(null)
                : () -> future.completeExceptionally(new BlockCacheException(what + ": " + result.message()));
        try {
            completions.execute(completion);
        } catch (RejectedExecutionException e) {
            completion.run(); // the application shut its executor down; complete here rather than never
        }
    }

    /** Refuses every later request with {@code reason} (the cache is closing or stopped). */
    void refuse(String reason) {
        refusal = reason;
    }

    /** Fails every request still in flight with {@code reason}: the loop has stopped and will not answer. */
    void failAll(String reason) {
        refuse(reason);
        for (Map.Entry<CompletableFuture<Void>, String> entry : pending.entrySet()) {
            finish(entry.getKey(), entry.getValue(), IoResult.error(IoStatus.CLOSED, reason));
        }
    }

    /**
     * Starts a daemon thread that waits for {@code loop}'s thread to end (closed, or stopped on an internal error:
     * fail-stop) and then fails every request still in flight with the reason, so no future waits forever.
     */
    void watch(RealLoop loop) {
        Thread watcher = new Thread(() -> {
            try {
                loop.thread().join();
            } catch (InterruptedException e) {
                return;
            }
            Throwable failure = loop.failure();
            failAll(failure == null ? "the cache is closed"
                    : "the cache stopped on an internal error (fail-stop): " + failure);
        }, "blockcache-embed-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** Waits up to {@code timeout} until no request is in flight; true if none is. */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        if (!permits.tryAcquire(inFlightMax, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        permits.release(inFlightMax);
        return true;
    }
}

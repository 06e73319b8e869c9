package io.blockcache.admin;

import io.blockcache.loop.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs a read or a change of engine state on the loop thread and waits for its answer, for callers on other
 * threads (HTTP handlers). Engine objects are owned by the loop (DESIGN.md §2.1); this is the only way the
 * admin API touches them.
 *
 * <p>Thread rule: any thread except the loop's own (it would wait for itself).
 */
final class LoopCall {
    /** Raised when the loop cannot answer: stopped, failed, or too busy to answer within the timeout. */
    static final class Unavailable extends Exception {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private LoopCall() {
    }

    /**
     * Runs {@code task} on {@code loop} and returns its result.
     *
     * @param timeoutNs how long to wait for the answer, in nanoseconds
     * @throws Unavailable if the loop is stopped, the task threw, or no answer came in time
     */
    static <T> T call(EventLoop loop, Supplier<T> task, long timeoutNs) throws Unavailable {
        if (loop.inLoop()) {
            throw new IllegalStateException("LoopCall.call on the loop thread would wait for itself");
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        try {
            loop.execute(() -> answer.complete(task.get()));
        } catch (IllegalStateException stopped) {
            throw new Unavailable("the cache's event loop is not running: " + stopped.getMessage(), stopped);
        }
        try {
            return answer.get(timeoutNs, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // Also what a task that threw looks like: the loop stopped (fail-stop) and never answered.
            throw new Unavailable("the cache's event loop did not answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms", e);
        } catch (ExecutionException e) {
            throw new Unavailable("reading engine state failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while waiting for the event loop", e);
        }
    }
}

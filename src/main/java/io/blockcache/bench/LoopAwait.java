package io.blockcache.bench;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs one asynchronous call on a real loop's thread and waits for its answer from the benchmark's main
 * thread, with a timeout so that a lost callback (a deadlock) fails the benchmark instead of hanging it.
 */
final class LoopAwait {
    private LoopAwait() {
    }

    /** Runs {@code op} on {@code loop} and returns what it hands to its callback within {@code timeoutSeconds}. */
    static <T> T call(EventLoop loop, long timeoutSeconds, Consumer<Consumer<T>> op) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                op.accept(answer::complete);
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        try {
            return answer.get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the loop", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("call on the loop failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer from the loop within " + timeoutSeconds + " s", e);
        }
    }

    /** Runs a device-style call on the loop; fails unless it answers OK. */
    static void io(EventLoop loop, long timeoutSeconds, String what, Consumer<IoCallback> op) {
        IoResult result = call(loop, timeoutSeconds, done -> op.accept(done::accept));
        if (!result.ok()) {
            throw new IllegalStateException(what + " failed: " + result);
        }
    }

    /** Runs {@code task} on the loop and waits for it. */
    static void run(EventLoop loop, long timeoutSeconds, Runnable task) {
        LoopAwait.<Boolean>call(loop, timeoutSeconds, done -> {
            task.run();
            done.accept(Boolean.TRUE);
        });
    }
}

package io.blockcache.engine;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.RealLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Test support: runs one asynchronous engine call on a {@link RealLoop}'s thread and waits for its answer
 * from the calling (test or main) thread, with a timeout so that a lost callback fails instead of hanging.
 */
final class OnLoop {
    /** Longest wait for one call; far above any single operation on small files. */
    static final long TIMEOUT_SECONDS = 20;

    private OnLoop() {
    }

    /** Runs {@code op} on the loop and returns what it hands to its callback. */
    static <T> T call(RealLoop loop, Consumer<Consumer<T>> op) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                op.accept(answer::complete);
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        try {
            return answer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the loop", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("call on the loop failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer from the loop within " + TIMEOUT_SECONDS + " s", e);
        }
    }

    /** Runs one device-style call on the loop and returns its result. */
    static IoResult io(RealLoop loop, Consumer<IoCallback> op) {
        return call(loop, done -> op.accept(done::accept));
    }

    /** Evaluates {@code value} on the loop thread (for state that only the loop may touch). */
    static <T> T get(RealLoop loop, Supplier<T> value) {
        return call(loop, done -> done.accept(value.get()));
    }
}

package io.blockcache.cli;

import io.blockcache.loop.RealLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs one asynchronous engine operation on a {@link RealLoop} and waits for its result on the command's
 * thread: the bridge between a blocking command line and the loop-owned engine.
 */
final class LoopCalls {
    /** How often the waiting thread looks whether the loop died (fail-stop) instead of answering. */
    private static final long LIVENESS_POLL_MS = 200;

    private LoopCalls() {
    }

    /**
     * Starts {@code operation} on the loop, handing it a callback; returns the value given to that callback.
     *
     * @throws IllegalStateException if the loop stopped (a broken invariant) before the callback ran
     */
    static <T> T await(RealLoop loop, Consumer<Consumer<T>> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        loop.execute(() -> operation.accept(result::complete));
        while (true) {
            try {
                return result.get(LIVENESS_POLL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!loop.isAlive()) {
                    throw new IllegalStateException("the engine stopped: " + loop.failure(), loop.failure());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the engine", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}

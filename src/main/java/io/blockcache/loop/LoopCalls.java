package io.blockcache.loop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs one asynchronous operation on a real loop's thread and waits for its answer on a foreign thread: the
 * bridge between blocking callers (command line, HTTP handlers, benchmarks, tests) and the loop-owned engine.
 *
 * <p>Thread rule: any thread except the loop's own. Called on the loop thread it would wait for itself, so
 * it checks and throws {@link IllegalStateException} instead. A {@link SimLoop} is driven by its caller and
 * cannot answer a waiting thread; use this with a {@link RealLoop}.
 */
public final class LoopCalls {
    /**
     * How often, in milliseconds, the waiting thread looks whether a {@link RealLoop} died (fail-stop) instead
     * of answering; a dead loop never answers, so without this the caller would wait out its whole timeout.
     */
    private static final long LIVENESS_POLL_MS = 200;

    /** The loop gave no answer: it is stopped or died, the operation threw, the wait timed out or was interrupted. */
    public static final class NoAnswer extends IllegalStateException {
        NoAnswer(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private LoopCalls() {
    }

    /**
     * Starts {@code operation} on {@code loop}, handing it a callback, and returns the value the operation
     * gives to that callback. If the operation throws on the loop, the exception reaches the caller as the
     * cause of a {@link NoAnswer} and is rethrown on the loop too, which then stops as for any task that
     * throws (fail-stop: never carry on with unknown state). On a {@link RealLoop} that {@link NoAnswer} is
     * thrown only once the loop has stopped, so the caller's next call is refused as "not running" instead of
     * racing the loop's shutdown.
     *
     * @param timeout longest wait for the answer; must be positive
     * @throws IllegalStateException if called on the loop's own thread
     * @throws NoAnswer if the loop is not running or dies before answering, the operation throws, no answer
     *         comes within {@code timeout}, or the waiting thread is interrupted (its flag is set again)
     */
    public static <T> T await(EventLoop loop, Consumer<Consumer<T>> operation, Duration timeout) {
        Objects.requireNonNull(operation, "operation");
        if (!timeout.isPositive()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        if (loop.inLoop()) {
            throw new IllegalStateException("LoopCalls.await on the loop thread would wait for itself");
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                try {
                    operation.accept(answer::complete);
                } catch (RuntimeException e) {
                    answer.completeExceptionally(e);
                    throw e;
                }
            });
        } catch (IllegalStateException stopped) {
            throw new NoAnswer("the event loop is not running: " + stopped.getMessage(), stopped);
        }
        return waitFor(loop, answer, timeout);
    }

    private static <T> T waitFor(EventLoop loop, CompletableFuture<T> answer, Duration timeout) {
        // A foreign thread's deadline, not engine time: the monotonic clock is the right one here.
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0) {
                    throw new NoAnswer("the event loop did not answer within " + timeout.toMillis() + " ms"
                            + failureSuffix(loop), null);
                }
                try {
                    return answer.get(Math.min(leftNs, TimeUnit.MILLISECONDS.toNanos(LIVENESS_POLL_MS)),
                            TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    // Looked at after the answer: a loop that answered and then died still gave its answer.
                    if (loop instanceof RealLoop real && !real.isAlive() && !answer.isDone()) {
                        throw new NoAnswer("the event loop stopped before answering" + failureSuffix(loop),
                                real.failure());
                    }
                }
            }
        } catch (ExecutionException e) {
            // The operation threw and the loop is rethrowing it: wait (within the caller's deadline) until the
            // loop has stopped, so that what the caller does next sees a stopped loop, not a dying one.
            if (loop instanceof RealLoop real) {
                awaitStopped(real, deadlineNs);
            }
            throw new NoAnswer("the call on the event loop failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NoAnswer("interrupted while waiting for the event loop", e);
        }
    }

    /** Waits until {@code loop} has stopped or {@code deadlineNs} (of {@link System#nanoTime}) has passed. */
    private static void awaitStopped(RealLoop loop, long deadlineNs) {
        try {
            loop.awaitStopped(Math.max(0, deadlineNs - System.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String failureSuffix(EventLoop loop) {
        return loop instanceof RealLoop real && real.failure() != null ? "; it failed: " + real.failure() : "";
    }
}

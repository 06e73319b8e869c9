package io.blockcache.bench;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.LoopCalls;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Runs one asynchronous call on a real loop's thread and waits for its answer from the benchmark's main
 * thread, with a timeout so that a lost callback (a deadlock) fails the benchmark instead of hanging it: the
 * benchmark's shorthand over {@link LoopCalls#await}, adding device-style and plain-task calls.
 */
final class LoopAwait {
    private LoopAwait() {
    }

    /**
     * Runs {@code op} on {@code loop} and returns what it hands to its callback within {@code timeoutSeconds}.
     *
     * @throws LoopCalls.NoAnswer if the loop fails, {@code op} throws, or no answer comes in time
     */
    static <T> T call(EventLoop loop, long timeoutSeconds, Consumer<Consumer<T>> op) {
        return LoopCalls.await(loop, op, Duration.ofSeconds(timeoutSeconds));
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

package io.blockcache.engine;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.time.Duration;
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
        return LoopCalls.await(loop, op, Duration.ofSeconds(TIMEOUT_SECONDS));
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

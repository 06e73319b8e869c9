package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import io.blockcache.loop.SimLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Submits device requests on the owning loop and watches their callbacks: how many ran, whether any ran
 * inside its submitting call, whether any ran twice. Works with a {@link SimLoop} (driven to idle) and a
 * real loop (waited on with a timeout).
 */
final class CallbackProbe {
    static final long TIMEOUT_SECONDS = 10;

    private final EventLoop loop;
    private boolean inSubmit; // loop thread only
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger reentered = new AtomicInteger();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger offLoop = new AtomicInteger();

    CallbackProbe(EventLoop loop) {
        this.loop = loop;
    }

    /** Runs {@code request} on the loop with a watching callback; the future holds the result. */
    CompletableFuture<IoResult> submit(Consumer<IoCallback> request) {
        CompletableFuture<IoResult> future = new CompletableFuture<>();
        IoCallback callback = result -> {
            calls.incrementAndGet();
            if (inSubmit) {
                reentered.incrementAndGet();
            }
            if (!loop.inLoop()) {
                offLoop.incrementAndGet();
            }
            if (!future.complete(result)) {
                duplicates.incrementAndGet();
            }
        };
        onLoop(() -> {
            inSubmit = true;
            try {
                request.accept(callback);
            } finally {
                inSubmit = false;
            }
        });
        return future;
    }

    /** Runs {@code task} on the loop (queued; a SimLoop runs it when driven). */
    void onLoop(Runnable task) {
        loop.execute(task);
    }

    /** Runs {@code task} on the loop and waits until it has run. */
    void onLoopAndWait(Runnable task) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        drive();
        done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Waits for the result (driving a SimLoop to idle first); fails the test after the timeout. */
    IoResult await(CompletableFuture<IoResult> future) throws Exception {
        drive();
        return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private void drive() {
        if (loop instanceof SimLoop sim) {
            sim.runUntilIdle();
        }
    }
}

package io.blockcache.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopCallsTest {
    private static final Duration LONG = Duration.ofSeconds(20);
    private final RealLoop loop = new RealLoop("loop-calls-test");

    @AfterEach
    void closeLoop() {
        loop.close();
    }

    @Test
    void returnsWhatTheOperationHandsItsCallbackLater() {
        // Proves the answer is the value given to the callback, even when the callback runs in a later task.
        String answer = LoopCalls.<String>await(loop, done -> loop.execute(() -> done.accept(
                loop.inLoop() ? "on the loop" : "elsewhere")), LONG);
        assertThat(answer).isEqualTo("on the loop");
    }

    @Test
    void refusesToWaitOnTheLoopThreadItself() throws Exception {
        // Proves the self-deadlock check: a call from the loop thread throws at once instead of hanging.
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                LoopCalls.<Boolean>await(loop, done -> done.accept(true), LONG);
                thrown.complete(null);
            } catch (IllegalStateException e) {
                thrown.complete(e);
            }
        });
        assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(LoopCalls.NoAnswer.class).hasMessageContaining("wait for itself");
    }

    @Test
    void anOperationThatThrowsReachesTheCallerAndStopsTheLoop() {
        // Proves a throwing operation is neither swallowed nor waited out, and reaches the caller only once the loop
        // has fail-stopped, so a second call is refused as "not running" rather than racing the shutdown.
        IllegalArgumentException bug = new IllegalArgumentException("planted");
        assertThatThrownBy(() -> LoopCalls.<Boolean>await(loop, done -> {
            throw bug;
        }, LONG)).isInstanceOf(LoopCalls.NoAnswer.class).hasCause(bug);
        assertThat(loop.isAlive()).as("stopped by the time the caller hears of the failure").isFalse();
        assertThatThrownBy(() -> LoopCalls.<Boolean>await(loop, done -> done.accept(true), LONG))
                .isInstanceOf(LoopCalls.NoAnswer.class).hasMessageContaining("not running");
    }

    @Test
    void aLoopThatDiesBeforeAnsweringIsSeenWellBeforeTheTimeout() {
        // Proves the liveness poll: the operation never answers, another task kills the loop, the wait ends.
        IllegalStateException bug = new IllegalStateException("broken invariant");
        long startNs = System.nanoTime();
        assertThatThrownBy(() -> LoopCalls.<Boolean>await(loop, done -> loop.execute(() -> {
            throw bug;
        }), Duration.ofMinutes(5))).isInstanceOf(LoopCalls.NoAnswer.class)
                .hasMessageContaining("stopped before answering").hasCause(bug);
        assertThat(System.nanoTime() - startNs).isLessThan(TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void aLostCallbackEndsInATimeout() {
        // Proves the timeout bound: an operation that never calls back fails the wait instead of hanging it.
        assertThatThrownBy(() -> LoopCalls.<Boolean>await(loop, done -> {
        }, Duration.ofMillis(50))).isInstanceOf(LoopCalls.NoAnswer.class).hasMessageContaining("within 50 ms");
    }
}

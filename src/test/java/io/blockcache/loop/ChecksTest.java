package io.blockcache.loop;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one check utility says what failed, and the loop-thread check refuses other threads. */
class ChecksTest {
    @Test
    void failedChecksThrowTheRightKindWithTheirNumbers() {
        // Proves check is a state failure and require an argument failure, each formatting its numbers.
        assertThatCode(() -> Checks.check(true, "never %d", 1L)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Checks.check(false, "bucket %d holds %d sectors", 7L, 300L))
                .isInstanceOf(IllegalStateException.class).hasMessage("bucket 7 holds 300 sectors");
        assertThatThrownBy(() -> Checks.require(false, "size %d", 5L))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("size 5");
        assertThatThrownBy(() -> Checks.check(false, "%s and %s", "a", "b")).hasMessage("a and b");
    }

    @Test
    void onLoopAcceptsTheLoopThreadAndRefusesAnyOther() throws Exception {
        // Proves an engine entry point called from a foreign thread fails at once, naming the thread and the
        // entry point; called on the loop it passes.
        try (RealLoop loop = new RealLoop("checks-test")) {
            CompletableFuture<Throwable> onLoop = new CompletableFuture<>();
            loop.execute(() -> {
                try {
                    Checks.onLoop(loop, "Volume.read");
                    onLoop.complete(null);
                } catch (RuntimeException e) {
                    onLoop.complete(e);
                }
            });
            org.assertj.core.api.Assertions.assertThat(onLoop.get(10, TimeUnit.SECONDS)).isNull();
            assertThatThrownBy(() -> Checks.onLoop(loop, "Volume.read"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Volume.read called from thread " + Thread.currentThread().getName());
        }
    }
}

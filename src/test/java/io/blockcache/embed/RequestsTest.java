package io.blockcache.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.RealLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** How requests cross from application threads to the loop and back, including when the loop dies under them. */
class RequestsTest {
    private static final long WAIT_SECONDS = 10;

    @Test
    void aFailStopFailsEveryRequestInFlightAndRefusesLaterOnes() throws Exception {
        // Proves no future waits forever: a request the dead loop will never answer fails with the loop's error.
        RealLoop loop = new RealLoop("requests-test-loop");
        Requests requests = new Requests(loop, ForkJoinPool.commonPool(), 4);
        requests.watch(loop);
        CompletableFuture<Void> never = requests.submit("write of disk [0, +4096)", callback -> { });
        loop.execute(() -> {
            throw new IllegalStateException("planted invariant failure");
        });
        assertThatThrownBy(() -> never.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(BlockCacheException.class)
                .hasMessageContaining("write of disk [0, +4096)").hasMessageContaining("fail-stop")
                .hasMessageContaining("planted invariant failure");
        CompletableFuture<Void> later = requests.submit("flush of disk", callback -> callback.complete(IoResult.OK));
        assertThatThrownBy(() -> later.get(WAIT_SECONDS, TimeUnit.SECONDS)).cause()
                .hasMessageContaining("flush of disk").hasMessageContaining("fail-stop");
        loop.close();
    }

    @Test
    void outcomesCompleteOffTheLoopThreadOnceEach() throws Exception {
        // Proves an OK completes the future, an error fails it with the request's name, both off the loop thread,
        // and a late second callback (a broken engine) cannot complete it twice.
        RealLoop loop = new RealLoop("requests-test-loop");
        try {
            Requests requests = new Requests(loop, ForkJoinPool.commonPool(), 4);
            AtomicReference<String> thread = new AtomicReference<>();
            requests.submit("read", callback -> callback.complete(IoResult.OK))
                    .thenRun(() -> thread.set(Thread.currentThread().getName())).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(thread.get()).isNotEqualTo("requests-test-loop");
            AtomicReference<IoCallback> saved = new AtomicReference<>();
            CompletableFuture<Void> failed = requests.submit("trim of disk [0, +512)", callback -> {
                saved.set(callback);
                callback.complete(IoResult.error(IoStatus.IO_ERROR, "EIO from the backing device"));
            });
            assertThatThrownBy(() -> failed.get(WAIT_SECONDS, TimeUnit.SECONDS)).cause()
                    .hasMessage("trim of disk [0, +512): EIO from the backing device");
            saved.get().complete(IoResult.OK); // ignored: the request has finished
            assertThat(failed).isCompletedExceptionally();
            assertThat(requests.awaitIdle(java.time.Duration.ofSeconds(WAIT_SECONDS))).isTrue();
        } finally {
            loop.close();
        }
    }
}

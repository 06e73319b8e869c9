package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.log.EventName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bounds' small parts by hand, with a manual clock: the buffer budget, the log's rate limit, the limits. */
class NbdBoundsUnitTest {
    private static final int PAGE = PayloadBuffers.ALIGNMENT_BYTES;

    @Test
    void theBudgetMakesAWaiterWaitCountsItAndKeepsItsPeak() throws Exception {
        // Proves acquire takes at once while bytes are free, waits (counted) when not, resumes on release, and
        // the peak and in-use counters follow; misuse (over-release, odd sizes) is refused.
        BufferBudget budget = new BufferBudget(4L * PAGE);
        budget.acquire(3L * PAGE);
        assertThat(budget.waitsTotal()).isZero();
        CountDownLatch took = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                budget.acquire(2L * PAGE);
                took.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        NbdHostileClientTest.awaitTrue(() -> budget.waitsTotal() == 1, "the waiter to wait");
        assertThat(took.getCount()).isEqualTo(1);
        budget.release(PAGE);
        assertThat(took.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        waiter.join();
        assertThat(budget.bytesInUse()).isEqualTo(4L * PAGE);
        assertThat(budget.bytesInUsePeak()).isEqualTo(4L * PAGE);
        budget.release(4L * PAGE);
        assertThat(budget.bytesInUse()).isZero();
        assertThatThrownBy(() -> budget.release(PAGE)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> budget.acquire(100)).hasMessageContaining("not a multiple of 4096");
        assertThatThrownBy(() -> budget.acquire(5L * PAGE)).hasMessageContaining("within the budget");
    }

    @Test
    void theOperatorLogKeepsToItsRateAndSaysWhatItDropped() {
        // Proves at most LINES_PER_WINDOW_MAX lines per window, and the first line of the next window counts
        // what was dropped.
        AtomicLong nowNs = new AtomicLong();
        List<String> lines = new ArrayList<>();
        OperatorLog log = new OperatorLog(event -> lines.add(event.name().id() + " " + event.message()
                + " " + event.fields()), nowNs::get);
        for (int i = 0; i < OperatorLog.LINES_PER_WINDOW_MAX + 5; i++) {
            log.line(EventName.NBD_TIMEOUT, "10.0.0.1", "event " + i);
        }
        assertThat(lines).hasSize(OperatorLog.LINES_PER_WINDOW_MAX)
                .allMatch(line -> line.startsWith("nbd.timeout 10.0.0.1: event"));
        nowNs.addAndGet(OperatorLog.WINDOW_NS);
        log.line(EventName.NBD_REFUSED, null, "later");
        assertThat(lines.subList(OperatorLog.LINES_PER_WINDOW_MAX, lines.size())).containsExactly(
                "nbd.suppressed 5 more messages were not logged (at most 20 per 10 s; the counters in /api/stats count"
                        + " all) [Field[key=suppressed, value=5]]",
                "nbd.refused later []");
    }

    @Test
    void limitsAreValidatedOnceWithTheirNames() {
        // Proves each limit's range is checked and named, and the watchdog's tick follows the shortest timeout.
        NbdLimits d = NbdLimits.DEFAULTS;
        assertThatThrownBy(() -> d.withTimeouts(Duration.ZERO, Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("handshake timeout must be positive");
        assertThatThrownBy(() -> d.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(-1), Duration.ZERO))
                .hasMessageContaining("idle timeout must not be negative");
        assertThatThrownBy(() -> d.withConnections(10, 11)).hasMessageContaining("per address must be 1..10");
        assertThatThrownBy(() -> d.withConnections(0, 1)).hasMessageContaining("connections must be 1..");
        assertThatThrownBy(() -> d.withBufferBytesMax(1 << 20)).hasMessageContaining("at least one maximum-size");
        assertThat(NbdLimits.BUFFER_BYTES_MIN).isEqualTo(ConnectionBudget.REQUEST_BUFFER_BYTES_MAX)
                .isGreaterThan(Connection.REQUEST_BYTES_MAX);
        assertThat(ConnectionWatchdog.tickNs(d)).isEqualTo(ConnectionWatchdog.TICK_NS_MAX); // 10 s / 4, capped
        assertThat(ConnectionWatchdog.tickNs(d.withTimeouts(Duration.ofSeconds(10), Duration.ofMillis(400),
                Duration.ZERO))).isEqualTo(100_000_000L);
        assertThat(ConnectionWatchdog.tickNs(d.withTimeouts(Duration.ofMillis(1), Duration.ZERO, Duration.ZERO)))
                .isEqualTo(ConnectionWatchdog.TICK_NS_MIN);
        assertThat(d.directMemoryBytesMax()).isLessThan(512L << 20); // fits a JVM with a 512 MiB heap limit
    }
}

package io.blockcache.nbd;

import io.blockcache.loop.Clock;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The NBD server's one-line messages to the operator (a refused connection, a timeout, a protocol violation, an
 * allocation failure), rate-limited so that a hostile client cannot flood the log: at most
 * {@link #LINES_PER_WINDOW_MAX} lines per {@link #WINDOW_NS}; the first line after a window that dropped some
 * says how many. Counters in the server's stats count every event, logged or not.
 *
 * <p>Thread rule: any thread (synchronised; the sink is called inside the lock, so lines never interleave).
 */
final class OperatorLog {
    /** Lines per window: enough to see what is going on, few enough that a flood costs nothing. */
    static final int LINES_PER_WINDOW_MAX = 20;
    /** 10 s windows. */
    static final long WINDOW_NS = 10_000_000_000L;

    private final Consumer<String> sink;
    private final Clock clock;
    private long windowStartNs;
    private int linesInWindow;
    private long suppressed;

    OperatorLog(Consumer<String> sink, Clock clock) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.windowStartNs = clock.nowNs();
    }

    /** Logs {@code line} ("nbd: " is prepended) unless this window's lines are used up. */
    synchronized void line(String line) {
        long nowNs = clock.nowNs();
        if (nowNs - windowStartNs >= WINDOW_NS) {
            windowStartNs = nowNs;
            linesInWindow = 0;
        }
        if (linesInWindow >= LINES_PER_WINDOW_MAX) {
            suppressed++;
            return;
        }
        linesInWindow++;
        if (suppressed > 0) {
            sink.accept("nbd: " + suppressed + " more messages were not logged (at most " + LINES_PER_WINDOW_MAX
                    + " per " + WINDOW_NS / 1_000_000_000L + " s; the counters in /api/stats count all)");
            suppressed = 0;
        }
        sink.accept("nbd: " + line);
    }
}

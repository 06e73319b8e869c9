package io.blockcache.nbd;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.Clock;
import java.util.Objects;

/**
 * The NBD server's events for the operator, each with its stable name ({@link EventName}{@code .NBD_*}). Warnings (a
 * refused connection, a timeout, a protocol violation, an allocation failure) are rate-limited so that a hostile
 * client cannot flood the log: at most {@link #LINES_PER_WINDOW_MAX} per {@link #WINDOW_NS}; the first after a window
 * that dropped some is preceded by an {@link EventName#NBD_SUPPRESSED} event saying how many. A connection's start and
 * end ({@link #connection}) are not held back here: one per connection at most, and the sink keeps each name to its
 * own share. Counters in the server's stats count every event, logged or not.
 *
 * <p>Thread rule: any thread, including the loop's (the sink never blocks); synchronised, so the suppressed count and
 * the line after it go out in order.
 */
final class OperatorLog {
    /** Lines per window: enough to see what is going on, few enough that a flood costs nothing. */
    static final int LINES_PER_WINDOW_MAX = 20;
    /** 10 s windows. */
    static final long WINDOW_NS = 10_000_000_000L;

    private final EventSink sink;
    private final Clock clock;
    private long windowStartNs;
    private int linesInWindow;
    private long suppressed;

    OperatorLog(EventSink sink, Clock clock) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.windowStartNs = clock.nowNs();
    }

    /** A warning about the client at {@code peer} (null: none known yet), unless this window's lines are used up. */
    void line(EventName name, String peer, String text) {
        warn(peer == null ? LogEvent.of(name, text) : LogEvent.of(name, peer + ": " + text).with("peer", peer));
    }

    /** A connection's start or end: never held back here. */
    void connection(LogEvent event) {
        sink.log(event);
    }

    private synchronized void warn(LogEvent event) {
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
            sink.log(LogEvent.of(EventName.NBD_SUPPRESSED, suppressed + " more messages were not logged (at most "
                    + LINES_PER_WINDOW_MAX + " per " + WINDOW_NS / 1_000_000_000L
                    + " s; the counters in /api/stats count all)").with("suppressed", suppressed));
            suppressed = 0;
        }
        sink.log(event);
    }
}

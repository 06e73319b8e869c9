package io.blockcache.nbd;

import io.blockcache.log.EventName;
import io.blockcache.loop.Clock;
import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

/**
 * Closes connections whose time is up: a handshake not finished within the handshake timeout, a connection idle
 * longer than the idle timeout, a reply the client has not read for the reply stall timeout. One virtual thread
 * per server wakes every {@link #tickNs} and asks each connection ({@link Connection#timedOut}); a connection is
 * closed at most one tick after its timeout.
 *
 * <p>Time comes from the server's {@link Clock} (the loop's), so a test can drive {@link #check} by hand; the
 * thread itself parks between ticks, which is why it is a blocking exemption in {@code rules.EngineRules}.
 *
 * <p>Thread rule: {@link #start} and {@link #stop} from any thread but the loop's; {@link #check} from one
 * thread at a time (the watchdog's own, or a test's when the thread is not started).
 */
final class ConnectionWatchdog {
    /** Ticks no shorter than this: cheap even with thousands of connections. */
    static final long TICK_NS_MIN = 10_000_000L;
    /** Ticks no longer than this, so the slowest timeout is still honoured within a second. */
    static final long TICK_NS_MAX = 1_000_000_000L;

    private final Collection<Connection> connections;
    private final NbdLimits limits;
    private final NbdCounters counters;
    private final OperatorLog log;
    private final Clock clock;
    private final long tickNs;
    private volatile boolean stopped;
    private volatile Thread thread;

    ConnectionWatchdog(Collection<Connection> connections, NbdLimits limits, NbdCounters counters, OperatorLog log,
                       Clock clock) {
        this.connections = connections;
        this.limits = limits;
        this.counters = counters;
        this.log = log;
        this.clock = clock;
        this.tickNs = tickNs(limits);
    }

    /** A quarter of the shortest timeout in use, within [{@link #TICK_NS_MIN}, {@link #TICK_NS_MAX}]. */
    static long tickNs(NbdLimits limits) {
        long shortestNs = limits.handshakeTimeout().toNanos();
        for (java.time.Duration timeout : new java.time.Duration[] {limits.idleTimeout(), limits.replyStallTimeout()}) {
            if (!timeout.isZero()) {
                shortestNs = Math.min(shortestNs, timeout.toNanos());
            }
        }
        return Math.clamp(shortestNs / 4, TICK_NS_MIN, TICK_NS_MAX);
    }

    void start() {
        thread = Thread.ofVirtual().name("nbd-watchdog").start(() -> {
            while (!stopped) {
                LockSupport.parkNanos(this, tickNs);
                if (!stopped) {
                    try {
                        check();
                    } catch (OutOfMemoryError e) {
                        log.line(EventName.NBD_OUT_OF_MEMORY, null, "out of memory checking timeouts (" + e.getMessage()
                                + "); checking again next tick");
                    }
                }
            }
        });
    }

    /** Ends the thread (at most one tick later; this does not wait). */
    void stop() {
        stopped = true;
        Thread running = thread;
        if (running != null) {
            LockSupport.unpark(running);
        }
    }

    /** One tick: closes every connection whose timeout has expired; returns how many. */
    int check() {
        long nowNs = clock.nowNs();
        int closedCount = 0;
        for (Connection connection : connections) {
            Connection.Timeout timeout = connection.timedOut(nowNs, limits);
            if (timeout == null) {
                continue;
            }
            closedCount++;
            String what = switch (timeout) {
                case HANDSHAKE -> {
                    counters.handshakeTimeouts.incrementAndGet();
                    yield "handshake not finished within " + limits.handshakeTimeout().toMillis() + " ms";
                }
                case IDLE -> {
                    counters.idleTimeouts.incrementAndGet();
                    yield "idle for " + limits.idleTimeout().toMillis() + " ms";
                }
                case REPLY_STALL -> {
                    counters.replyStallTimeouts.incrementAndGet();
                    yield "did not read its replies for " + limits.replyStallTimeout().toMillis() + " ms";
                }
            };
            log.line(EventName.NBD_TIMEOUT, connection.peer(), what + "; connection closed");
            connection.close(timeout);
        }
        return closedCount;
    }
}

package io.blockcache.backing;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request timeout of an {@link NbdDevice}: a connection whose oldest request has waited longer than
 * {@code requestTimeoutNs} is given up, so that a server that stops answering without closing the socket cannot hold
 * writeback, flushes and the shutdown forever; the break then goes the usual way (what was in flight fails, flushes
 * wait, the reconnector reconnects and replays). Counted.
 *
 * <p>Threads: the reconnect thread checks; the count from any thread.
 */
final class NbdTimeouts {
    /** Checks per request timeout: a timed-out request is noticed within a quarter of the timeout. */
    static final int CHECKS_PER_TIMEOUT = 4;

    private final long requestTimeoutNs;
    private final AtomicLong count = new AtomicLong();

    NbdTimeouts(long requestTimeoutNs) {
        this.requestTimeoutNs = requestTimeoutNs;
    }

    /** Requests that waited longer than the timeout (each broke its connection). */
    long count() {
        return count.get();
    }

    /** How often to check, in ms. */
    long checkPeriodMs() {
        return Math.max(1, requestTimeoutNs / CHECKS_PER_TIMEOUT / 1_000_000L);
    }

    /** Expires the first of {@code connections} whose oldest request has waited too long at {@code nowNs}. */
    void check(List<NbdConnection> connections, long nowNs) {
        for (NbdConnection connection : connections) {
            NbdCommand oldest = connection.oldest();
            if (oldest != null && nowNs - oldest.sentNs > requestTimeoutNs) {
                count.incrementAndGet();
                connection.expire(oldest.describe() + " unanswered for " + (nowNs - oldest.sentNs) / 1_000_000L
                        + " ms (request timeout " + requestTimeoutNs / 1_000_000L + " ms)");
                return; // one break drops every connection
            }
        }
    }
}

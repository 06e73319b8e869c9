package io.blockcache.nbd;

/**
 * Counts the server's requests in flight (received, not yet answered) so that shutdown can wait until none
 * is left. Thread rule: any thread (monitor-synchronised; two short critical sections per request).
 */
final class IdleTracker {
    private long inFlight;

    synchronized void begin() {
        inFlight++;
    }

    synchronized void end() {
        if (inFlight <= 0) {
            throw new IllegalStateException("request ended that never began");
        }
        if (--inFlight == 0) {
            notifyAll();
        }
    }

    synchronized long inFlight() {
        return inFlight;
    }

    /**
     * Waits until nothing is in flight, at most {@code timeoutNs} of {@code clock} time (the server's real loop);
     * returns true if idle.
     */
    synchronized boolean awaitIdle(long timeoutNs, io.blockcache.loop.Clock clock) throws InterruptedException {
        long deadlineNs = clock.nowNs() + timeoutNs;
        while (inFlight > 0) {
            long leftNs = deadlineNs - clock.nowNs();
            if (leftNs <= 0) {
                return false;
            }
            wait(Math.max(1, leftNs / 1_000_000), 0);
        }
        return true;
    }
}

package io.blockcache.writeback;

/**
 * Decides whether the front end is idle by polling (after the "Early flush" RFC, linux-kernel 2001): every sample
 * compares the volume's count of submitted front-end requests with the previous sample. Any change means busy at once;
 * no change for {@code idleAfterNs} means idle. Writeback's own I/O goes straight to the devices, so it never
 * counts as front-end traffic.
 *
 * <p>Reaction bounds with a sample period {@code p} and {@code idleAfterNs = p} (modern): busy is seen at the
 * first sample after the request (≤ p); idle at the second quiet sample (≤ 2p after the last request).
 *
 * <p>Thread rule: the loop thread.
 */
final class IdleDetector {
    private long lastSubmitted = -1;
    private long lastActivityNs;
    private boolean idle;

    /**
     * Takes one sample.
     *
     * @param submittedRequests front-end requests submitted so far (a counter; only differences matter)
     * @return true if the front end is idle now
     */
    boolean sample(long submittedRequests, long nowNs, long idleAfterNs) {
        if (submittedRequests != lastSubmitted) {
            lastSubmitted = submittedRequests;
            lastActivityNs = nowNs;
            idle = false;
        } else {
            idle = nowNs - lastActivityNs >= idleAfterNs;
        }
        return idle;
    }

    /** The decision of the last sample. */
    boolean idle() {
        return idle;
    }

    /** Loop time of the last sample that saw new front-end requests. */
    long lastActivityNs() {
        return lastActivityNs;
    }
}

package io.blockcache.writeback;

/**
 * Spaces passes out at a rate, like bcache's {@code bch_next_delay}: every pass of {@code s} sectors moves
 * the next allowed start {@code s / rate} seconds on; the schedule never runs more than 2 s behind now (so an
 * idle spell does not bank a burst) nor more than 2.5 s ahead (so a rate cut takes effect soon).
 *
 * <p>Thread rule: the loop thread.
 */
final class Pacer {
    /** bcache: next is not allowed to fall more than 2 s behind now. */
    static final long BEHIND_MAX_NS = 2_000_000_000L;
    /** bcache: next is not allowed to run more than 2.5 s ahead of now. */
    static final long AHEAD_MAX_NS = 2_500_000_000L;
    /** bcache's anti-windup slack: keeping up means now < next + 1 ms. */
    static final long KEEPING_UP_SLACK_NS = 1_000_000L;

    private long nextNs;

    /** The loop time from which the next paced pass may start. */
    long nextNs() {
        return nextNs;
    }

    /** True if a paced pass may start at {@code nowNs}. */
    boolean mayStart(long nowNs) {
        return nowNs >= nextNs;
    }

    /**
     * Starts the schedule afresh at {@code nowNs}: a drain job that starts or resumes must not spend the up to 2 s
     * of lag the schedule may carry (from idle time, or the pause itself) as a burst above its cap.
     */
    void restart(long nowNs) {
        nextNs = nowNs;
    }

    /** Books a pass of {@code sectors} at {@code rateSectorsPerSecond}. */
    void spent(long sectors, long rateSectorsPerSecond, long nowNs) {
        long delayNs = (long) (sectors * 1e9 / Math.max(1, rateSectorsPerSecond));
        nextNs = Math.min(Math.max(nextNs, nowNs - BEHIND_MAX_NS) + delayNs, nowNs + AHEAD_MAX_NS);
    }

    /** True if the pacer is not behind schedule, i.e. the rate, not the device, limits writeback. */
    boolean keepingUp(long nowNs) {
        return nowNs < nextNs + KEEPING_UP_SLACK_NS;
    }
}

package io.blockcache.loop;

/**
 * A handle to a task scheduled with {@link EventLoop#schedule(long, Runnable)}.
 *
 * <p>Thread rule: call {@link #cancel()} on the owning loop's thread.
 */
public interface Timer {
    /**
     * Prevents the task from running if it has not started yet.
     *
     * @return true if this call cancelled the task; false if it already ran or was already cancelled
     */
    boolean cancel();
}

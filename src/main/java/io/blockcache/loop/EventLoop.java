package io.blockcache.loop;

/**
 * The single thread that owns all state of one cache; what the engine sees of time and scheduling.
 *
 * <p>Contract:
 * <ul>
 *   <li>Tasks run one at a time, never concurrently, in submission order among tasks that became due
 *       at the same time (ties broken by a sequence number, so runs are deterministic).</li>
 *   <li>A task must do a bounded amount of work and return; it must not block or sleep.</li>
 *   <li><b>Completion delivery</b>: I/O threads (and NBD connections) hand results back to the owner by
 *       {@link #execute(Runnable)}, which is the only method safe to call from a foreign thread on a
 *       real loop. A simulated loop is single-threaded and refuses foreign threads.</li>
 * </ul>
 */
public interface EventLoop extends Clock {

    /**
     * Queues a task to run on the loop as soon as possible, after the tasks already due.
     * Thread rule: any thread for a real loop; the loop thread (or the driving thread) for a simulated one.
     *
     * @throws IllegalStateException if the loop has been shut down
     */
    void execute(Runnable task);

    /**
     * Runs {@code task} on the loop once {@code delayNs} nanoseconds of loop time have passed.
     * Thread rule: the loop thread.
     *
     * @param delayNs delay in nanoseconds, {@code >= 0}
     * @return a handle that can cancel the task before it runs
     */
    Timer schedule(long delayNs, Runnable task);

    /** Returns true if the calling thread is the one currently allowed to touch loop-owned state. */
    boolean inLoop();

    /**
     * Runs {@code task}, pure work that touches no loop-owned state, away from the loop thread where there are other
     * threads to run it (a real loop: a virtual thread of its own), or inline on a simulated loop, where a seed's run
     * must stay the same. The task hands its result back with {@link #execute}. Thread rule: the loop thread.
     */
    default void offLoop(Runnable task) {
        task.run();
    }
}

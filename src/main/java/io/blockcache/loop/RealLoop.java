package io.blockcache.loop;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An event loop on one platform thread in real time.
 *
 * <p>Tasks from any thread arrive through a queue; timers live in a heap that only the loop thread
 * touches. When nothing is due the thread blocks on the queue until the next timer is due or a task
 * arrives: an idle loop uses no CPU. Tasks run one at a time.
 *
 * <p>Failure: a task that throws is a broken invariant (operating errors are values, see
 * {@link io.blockcache.device.IoResult}); the loop stops at once, remembers the cause (see
 * {@link #failure()}), and refuses further tasks — fail-stop, never carry on with unknown state.
 */
public final class RealLoop implements EventLoop, AutoCloseable {
    /** Tasks drained per wake-up before timers are checked again, so timers are not starved by a flood. */
    private static final int TASKS_PER_TURN_MAX = 1024;

    private final LinkedBlockingQueue<Runnable> incoming = new LinkedBlockingQueue<>();
    private final PriorityQueue<ScheduledTask> timers = new PriorityQueue<>();
    private final ArrayDeque<Runnable> batch = new ArrayDeque<>();
    private final Thread thread;
    private long timerSequence;
    private volatile boolean stopping;
    private volatile Throwable failure;
    /** Written by the loop thread only (a single writer, so {@code ++} on the volatile is safe); any thread reads. */
    private volatile long wakeupsTotal;

    /** Starts a loop on a new thread named {@code name}. */
    public RealLoop(String name) {
        thread = new Thread(this::runLoop, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public long nowNs() {
        return System.nanoTime();
    }

    @Override
    public void execute(Runnable task) {
        if (stopping) {
            throw new IllegalStateException("loop " + thread.getName() + " is stopped"
                    + (failure != null ? " after a failure: " + failure : ""));
        }
        incoming.add(task);
    }

    /**
     * {@inheritDoc}
     *
     * <p>From a foreign thread the timer is handed to the loop with {@link #execute(Runnable)}; the
     * returned handle may still be cancelled from the loop thread.
     */
    @Override
    public Timer schedule(long delayNs, Runnable task) {
        if (delayNs < 0) {
            throw new IllegalArgumentException("delayNs must be >= 0: " + delayNs);
        }
        // The sequence number is set on the loop thread.
        ScheduledTask timer = new ScheduledTask(System.nanoTime() + delayNs, 0, task);
        if (inLoop()) {
            addTimer(timer);
        } else {
            execute(() -> addTimer(timer));
        }
        return timer;
    }

    private void addTimer(ScheduledTask timer) {
        timer.sequence = timerSequence++;
        timers.add(timer);
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Returns the exception that stopped the loop, or null if it has not failed. */
    public Throwable failure() {
        return failure;
    }

    /** Returns true while the loop thread is running. */
    public boolean isAlive() {
        return thread.isAlive();
    }

    /**
     * Waits until the loop thread has ended (closed or failed), at most {@code timeoutNs} nanoseconds. Once this
     * returns true, {@link #execute(Runnable)} refuses every task. Must not be called from the loop thread.
     *
     * @return true if the loop has stopped
     */
    public boolean awaitStopped(long timeoutNs) throws InterruptedException {
        if (inLoop()) {
            throw new IllegalStateException("RealLoop.awaitStopped() called on its own thread");
        }
        if (timeoutNs > 0) {
            thread.join(Duration.ofNanos(timeoutNs));
        }
        return !thread.isAlive();
    }

    /**
     * Times the loop thread came back from waiting for a task or a timer (once per turn, including turns that
     * found a timer already due). An idle loop blocks and adds none, which is how a test tells blocking from
     * spinning without measuring time.
     */
    public long wakeupsTotal() {
        return wakeupsTotal;
    }

    /** The loop's thread; for measurements such as CPU time in tests. */
    public Thread thread() {
        return thread;
    }

    /**
     * Stops the loop after the tasks already queued have run (timers not yet due are dropped) and waits
     * for its thread to end. Must not be called from the loop thread.
     */
    @Override
    public void close() {
        if (inLoop()) {
            throw new IllegalStateException("RealLoop.close() called on its own thread");
        }
        if (!stopping) {
            incoming.add(() -> stopping = true);
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        stopping = true;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void runLoop() {
        try {
            while (!stopping) {
                long waitNs = runDueTimers();
                Runnable first = waitNs == 0 ? incoming.poll() : incoming.poll(waitNs, TimeUnit.NANOSECONDS);
                wakeupsTotal++;
                if (first == null) {
                    continue;
                }
                batch.add(first);
                incoming.drainTo(batch, TASKS_PER_TURN_MAX - 1);
                Runnable task;
                while ((task = batch.poll()) != null) {
                    task.run();
                }
            }
        } catch (InterruptedException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            // Fail-stop: record the broken invariant, refuse new work, and let the thread die visibly.
            failure = e;
            stopping = true;
            throw e;
        } finally {
            stopping = true;
        }
    }

    /** Runs every timer that is due; returns nanoseconds until the next one (Long.MAX_VALUE if none). */
    private long runDueTimers() {
        while (true) {
            ScheduledTask head = timers.peek();
            if (head == null) {
                return Long.MAX_VALUE;
            }
            long untilDueNs = head.dueNs - System.nanoTime();
            if (untilDueNs > 0) {
                return untilDueNs;
            }
            timers.poll();
            if (!head.cancelled) {
                head.ran = true;
                head.task.run();
            }
        }
    }
}

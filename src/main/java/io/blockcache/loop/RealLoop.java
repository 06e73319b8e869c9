package io.blockcache.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * An event loop on one platform thread in real time.
 *
 * <p>Tasks from any thread arrive through a queue; timers live in a heap that only the loop thread
 * touches; channels ({@link ChannelLoop}) are watched by a {@link Selector} that only the loop thread uses. When
 * nothing is due the thread blocks in the selector until the next timer is due, a channel is ready or a task
 * arrives: an idle loop uses no CPU. Tasks and ready handlers run one at a time. A busy loop still looks at its
 * channels once per turn (a non-blocking select), so a flood of tasks does not starve the sockets.
 *
 * <p>Waking: a foreign {@link #execute} wakes the thread only while it sleeps (or is about to), by the
 * selector's wake-up. A wait shorter than a millisecond (the selector's unit) parks instead, after one look at the
 * channels, so timers keep their precision; {@link #execute} then unparks.
 *
 * <p>Failure: a task that throws is a broken invariant (operating errors are values, see
 * {@link io.blockcache.device.IoResult}); the loop stops at once, remembers the cause (see
 * {@link #failure()}), and refuses further tasks — fail-stop, never carry on with unknown state.
 */
public final class RealLoop implements ChannelLoop, AutoCloseable {
    /** Tasks drained per wake-up before timers are checked again, so timers are not starved by a flood. */
    private static final int TASKS_PER_TURN_MAX = 1024;
    private static final long NS_PER_MS = 1_000_000L;

    private final ConcurrentLinkedQueue<Runnable> incoming = new ConcurrentLinkedQueue<>();
    private final Selector selector;
    /** True while the loop thread waits for work, or is about to: a foreign task must wake it. */
    private final AtomicBoolean sleeping = new AtomicBoolean();
    /** How the thread waits while {@link #sleeping}: parked (true) or in the selector. Written before it. */
    private volatile boolean sleepsParked;
    /** Runs a ready channel's handler: one object for the loop's life, so a select allocates nothing. */
    private final Consumer<SelectionKey> dispatch = RealLoop::dispatch;
    /** As {@link #dispatch}, for a select the thread slept in: handlers' own tasks then need no wake-up. */
    private final Consumer<SelectionKey> dispatchAwake = key -> {
        sleeping.set(false);
        dispatch(key);
    };
    private final PriorityQueue<ScheduledTask> timers = new PriorityQueue<>();
    private final ArrayDeque<Runnable> batch = new ArrayDeque<>();
    private final Thread thread;
    private long timerSequence;
    private volatile boolean stopping;
    /** Set by {@link #close()} once its stop marker is queued: whatever is queued from then on runs no more. */
    private volatile boolean stopQueued;
    private volatile Throwable failure;
    /** Written by the loop thread only (a single writer, so {@code ++} on the volatile is safe); any thread reads. */
    private volatile long wakeupsTotal;

    /** Starts a loop on a new thread named {@code name}. */
    public RealLoop(String name) {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("loop " + name + ": cannot open a selector", e);
        }
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
        enqueue(task);
    }

    private void enqueue(Runnable task) {
        incoming.add(task);
        if (sleeping.get() && sleeping.compareAndSet(true, false)) {
            if (sleepsParked) {
                LockSupport.unpark(thread);
            } else {
                selector.wakeup(); // if the select has not begun yet, it returns at once
            }
        }
    }

    @Override
    public SelectionKey register(SelectableChannel channel, int ops, ReadyHandler handler)
            throws ClosedChannelException {
        if (!inLoop()) {
            throw new IllegalStateException("RealLoop.register() called off the loop thread");
        }
        return channel.register(selector, ops, handler);
    }

    private static void dispatch(SelectionKey key) {
        if (key.isValid()) {
            ((ReadyHandler) key.attachment()).ready(key.readyOps());
        }
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

    /** Runs {@code task} on a virtual thread of its own: the loop thread's core stays with the loop's tasks. */
    @Override
    public void offLoop(Runnable task) {
        Thread.ofVirtual().name(thread.getName() + "-off-loop").start(task);
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

    /** True once {@link #close()} has queued its stop marker (tests: to queue a task behind it). */
    boolean stopQueued() {
        return stopQueued;
    }

    /** The loop's thread; for measurements such as CPU time in tests. */
    public Thread thread() {
        return thread;
    }

    /**
     * Stops the loop after the tasks already queued have run (timers not yet due are dropped, and so are tasks
     * queued after this call began, including those the last tasks queue) and waits for its thread to end. Must not be
     * called from the loop thread.
     */
    @Override
    public void close() {
        if (inLoop()) {
            throw new IllegalStateException("RealLoop.close() called on its own thread");
        }
        if (!stopping) {
            enqueue(() -> stopping = true);
        }
        stopQueued = true;
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
                Runnable first = incoming.poll();
                if (first == null && waitNs > 0) {
                    first = await(waitNs);
                } else if (!selector.keys().isEmpty()) {
                    selector.selectNow(dispatch); // busy: still serve the channels once per turn
                }
                wakeupsTotal++;
                if (first == null) {
                    continue;
                }
                batch.add(first);
                Runnable next;
                while (batch.size() < TASKS_PER_TURN_MAX && (next = incoming.poll()) != null) {
                    batch.add(next);
                }
                Runnable task;
                // Nothing runs after the stop marker: such a task was queued after close() began, and one that queued
                // more (a GC slice queuing the next) would meet a refusing execute() and fail the loop at its end.
                while (!stopping && (task = batch.poll()) != null) {
                    task.run();
                }
                batch.clear();
            }
        } catch (InterruptedException e) {
            failure = e;
        } catch (IOException e) {
            failure = e; // the selector failed: nothing can wait for channels any more
        } catch (RuntimeException | Error e) {
            // Fail-stop: record the broken invariant, refuse new work, and let the thread die visibly.
            failure = e;
            stopping = true;
            throw e;
        } finally {
            stopping = true;
            try {
                selector.close(); // cancels every key; the channels stay open, their owners close them
            } catch (IOException ignored) {
                // the loop is ending either way
            }
        }
    }

    /**
     * Sleeps until a task arrives, a channel is ready or {@code waitNs} has passed; serves ready channels; returns
     * the next task, or null.
     */
    private Runnable await(long waitNs) throws IOException, InterruptedException {
        boolean park = waitNs < NS_PER_MS;
        sleepsParked = park;
        sleeping.set(true);
        Runnable task = incoming.poll(); // re-check after announcing the sleep: a task queued before saw no sleeper
        if (task != null) {
            sleeping.set(false);
            return task;
        }
        if (park) {
            if (!selector.keys().isEmpty()) {
                selector.selectNow(dispatch);
            }
            LockSupport.parkNanos(this, waitNs); // a handler's own execute() above unparked it already
            sleeping.set(false);
        } else {
            long waitMs = waitNs == Long.MAX_VALUE ? 0 : Math.max(1, waitNs / NS_PER_MS); // 0: no time limit
            selector.select(dispatchAwake, waitMs);
            sleeping.set(false);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("loop " + thread.getName() + " interrupted");
        }
        return incoming.poll();
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

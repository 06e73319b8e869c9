package io.blockcache.loop;

import java.util.PriorityQueue;

/**
 * An event loop in virtual time: single-threaded, deterministic, and as fast as the CPU allows.
 *
 * <p>Events run in order of due time; events due at the same time run in the order they were queued (a
 * sequence number breaks the tie), so a scenario driven from one seed is a pure function of that seed.
 * Time advances only when the next event is later than now: an event never observes time moving while
 * it runs, and a task costs no virtual time unless it schedules its effect later.
 *
 * <p>Every event run mixes its due time and sequence number into {@link #traceHash()}; components may
 * add their own observations with {@link #trace(long)}. Two runs of one seeded scenario produce the
 * same hash, and a difference means something non-deterministic crept in.
 *
 * <p>Thread rule: only the thread that created the loop may use it (the "driver"), both from inside
 * events and between {@code run*} calls.
 */
public final class SimLoop implements EventLoop {
    /**
     * Bound on events one {@link #runUntilIdle()} may run: a scenario that never settles is a bug (or has
     * periodic timers: then run for a time or until a condition instead). 50 million events take seconds.
     */
    public static final long RUN_UNTIL_IDLE_EVENTS_MAX = 50_000_000L;

    private final PriorityQueue<ScheduledTask> queue = new PriorityQueue<>();
    private final Thread driver = Thread.currentThread();
    private long nowNs;
    private long nextSequence;
    private long eventsRun;
    private long traceHash = 0xcbf29ce484222325L; // FNV-1a 64-bit offset basis
    private boolean running;

    /** Creates a loop whose virtual clock starts at zero. */
    public SimLoop() {
    }

    @Override
    public long nowNs() {
        return nowNs;
    }

    @Override
    public void execute(Runnable task) {
        enqueue(nowNs, task);
    }

    @Override
    public Timer schedule(long delayNs, Runnable task) {
        if (delayNs < 0) {
            throw new IllegalArgumentException("delayNs must be >= 0: " + delayNs);
        }
        return enqueue(Math.addExact(nowNs, delayNs), task);
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == driver;
    }

    private ScheduledTask enqueue(long dueNs, Runnable task) {
        checkDriver();
        ScheduledTask event = new ScheduledTask(dueNs, nextSequence++, task);
        queue.add(event);
        return event;
    }

    /**
     * Runs the earliest pending event, advancing virtual time to its due time.
     *
     * @return false if no event was pending
     */
    public boolean step() {
        checkDriver();
        if (running) {
            throw new IllegalStateException("SimLoop.step() called from inside an event");
        }
        ScheduledTask event;
        do {
            event = queue.poll();
            if (event == null) {
                return false;
            }
        } while (event.cancelled);
        nowNs = event.dueNs;
        mix(event.dueNs);
        mix(event.sequence);
        eventsRun++;
        event.ran = true;
        running = true;
        try {
            event.task.run();
        } finally {
            running = false;
        }
        return true;
    }

    /** Runs events until none is pending. Fails if more than {@link #RUN_UNTIL_IDLE_EVENTS_MAX} run. */
    public void runUntilIdle() {
        long budget = RUN_UNTIL_IDLE_EVENTS_MAX;
        while (step()) {
            if (--budget == 0) {
                throw new IllegalStateException("SimLoop did not settle after " + RUN_UNTIL_IDLE_EVENTS_MAX
                        + " events at t=" + nowNs + " ns");
            }
        }
    }

    /**
     * Runs every event due at or before {@code timeNs}, then sets the clock to {@code timeNs} (if it is
     * later than now), so that periodic work sees time pass even when nothing else happens.
     */
    public void runUntil(long timeNs) {
        checkDriver();
        while (true) {
            ScheduledTask head = peekLive();
            if (head == null || head.dueNs > timeNs) {
                break;
            }
            step();
        }
        nowNs = Math.max(nowNs, timeNs);
    }

    /** Runs events for {@code durationNs} nanoseconds of virtual time from now. */
    public void runFor(long durationNs) {
        runUntil(Math.addExact(nowNs, durationNs));
    }

    /**
     * Runs events until {@code condition} holds or no event is pending.
     *
     * @return true if the condition holds
     */
    public boolean runUntil(java.util.function.BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            if (!step()) {
                return condition.getAsBoolean();
            }
        }
        return true;
    }

    private ScheduledTask peekLive() {
        ScheduledTask head = queue.peek();
        while (head != null && head.cancelled) {
            queue.poll();
            head = queue.peek();
        }
        return head;
    }

    /** Number of events still pending (cancelled timers not yet discarded may be included). */
    public int pendingEvents() {
        return queue.size();
    }

    /** Number of events run so far. */
    public long eventsRun() {
        return eventsRun;
    }

    /** Mixes a component's observation into the trace hash (for determinism checks). */
    public void trace(long value) {
        checkDriver();
        mix(value);
    }

    /** Returns a hash of every event run and every value traced so far. */
    public long traceHash() {
        return traceHash;
    }

    /**
     * Drops every pending event: what a power cut does to work that was queued but not done. The clock
     * keeps its value. Devices decide separately what their media kept.
     */
    public void discardPending() {
        checkDriver();
        queue.clear();
    }

    private void mix(long value) {
        // FNV-1a over the eight bytes of the value: cheap, and any change in order or value shows.
        long h = traceHash;
        for (int i = 0; i < Long.BYTES; i++, value >>>= 8) {
            h ^= value & 0xff;
            h *= 0x100000001b3L;
        }
        traceHash = h;
    }

    private void checkDriver() {
        if (Thread.currentThread() != driver) {
            throw new IllegalStateException("SimLoop used from thread " + Thread.currentThread().getName()
                    + "; it belongs to " + driver.getName());
        }
    }
}

package io.blockcache.admin;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The admin server's executor: one new platform thread per request, at most {@link AdminLimits#requestsMax} at
 * once, each under a {@link RequestDeadline}. The JDK's server hands a request to its executor when the first byte
 * arrives and reads the headers on the executor's thread, so with a small fixed pool a few clients that send half a
 * request stop every other; here a slow client holds one thread of its own until its deadline, and the rest go on.
 * Beyond the cap {@link #execute} refuses, and the JDK's server closes that connection at once (counted). Platform
 * threads, not virtual ones: the server reads headers inside {@code synchronized} methods, which on Java 21 pin a
 * virtual thread to its carrier, so two slow clients could stall every virtual thread on a two-core machine.
 *
 * <p>Thread rule: {@link #execute} on the server's dispatcher thread; {@link #current} on a worker; the rest any
 * thread.
 */
final class AdminWorkers implements Executor, AutoCloseable {
    private static final ThreadLocal<RequestDeadline> CURRENT = new ThreadLocal<>();

    private final AdminLimits limits;
    private final Semaphore slots;
    private final ScheduledThreadPoolExecutor watchdog;
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong refusedRequestsMax = new AtomicLong();
    private volatile boolean closed;

    AdminWorkers(AdminLimits limits) {
        this.limits = limits;
        this.slots = new Semaphore(limits.requestsMax());
        this.watchdog = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "admin-http-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        watchdog.setRemoveOnCancelPolicy(true); // a deadline met is cancelled: do not keep it until it would fire
    }

    /** Runs one request (the JDK's exchange) on a thread of its own, or refuses it over the cap. */
    @Override
    public void execute(Runnable exchange) {
        if (closed) {
            throw new RejectedExecutionException("the admin server is closing");
        }
        if (!slots.tryAcquire()) {
            refusedRequestsMax.incrementAndGet();
            throw new RejectedExecutionException(limits.requestsMax() + " admin requests are in progress");
        }
        Thread thread = new Thread(() -> serve(exchange), "admin-http");
        thread.setDaemon(true);
        running.add(thread);
        thread.start();
    }

    private void serve(Runnable exchange) {
        Thread self = Thread.currentThread();
        RequestDeadline deadline = new RequestDeadline(self, watchdog, limits, timeouts);
        CURRENT.set(deadline);
        try {
            deadline.start();
            exchange.run();
        } finally {
            deadline.finish();
            CURRENT.remove();
            running.remove(self);
            slots.release();
        }
    }

    /** The deadline of the request the calling worker thread serves. */
    static RequestDeadline current() {
        RequestDeadline deadline = CURRENT.get();
        if (deadline == null) {
            throw new IllegalStateException("an admin request ran outside the admin workers: "
                    + Thread.currentThread().getName());
        }
        return deadline;
    }

    /** Requests in progress now (from first byte to the end of the answer). */
    int requestsInProgress() {
        return limits.requestsMax() - slots.availablePermits();
    }

    /** Requests cut off by their deadline since start. */
    long timeouts() {
        return timeouts.get();
    }

    /** Requests refused since start because {@link AdminLimits#requestsMax} were in progress. */
    long refusedRequestsMax() {
        return refusedRequestsMax.get();
    }

    /**
     * Refuses new requests, waits up to {@code waitMs} ms for those in progress, then interrupts the rest (which
     * closes their connections) and stops the watchdog.
     */
    void close(long waitMs) throws InterruptedException {
        closed = true;
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        for (Thread thread : running) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
        }
        running.forEach(Thread::interrupt);
        watchdog.shutdownNow();
    }

    /** As {@link #close(long)} with no wait. */
    @Override
    public void close() {
        closed = true;
        running.forEach(Thread::interrupt);
        watchdog.shutdownNow();
    }
}

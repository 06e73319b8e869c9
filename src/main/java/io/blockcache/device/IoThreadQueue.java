package io.blockcache.device;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The queue between a {@link FileDevice}'s loop and its I/O threads, which wakes parked threads only as far as the
 * device's speed needs.
 *
 * <p>Why not a {@code LinkedBlockingQueue}: with it every request put into an empty queue wakes a parked thread,
 * so at 32 in flight on a fast device (a cache file whose pages are in memory, where a 4 KiB {@code pread} takes
 * a microsecond or two) nearly every request paid a futex wake and a context switch — several times the CPU of the
 * read itself (docs/BENCHMARKS.md, "NBD": the I/O threads' system time per 4 KiB hit). The rule here:
 * <ul>
 *   <li>a thread that finishes a request takes the next queued one without parking, and a woken thread keeps
 *       taking requests until the queue is empty;
 *   <li>while the device is <em>fast</em> (the caller says so: its recent requests took less than a wake-up
 *       costs), a submission wakes a thread only if no thread is awake to take it (none executing a request,
 *       none with a wake-up under way): a thread busy with a request of a microsecond or two takes the next one
 *       sooner than a parked thread could be woken for it. Such a submission is <em>deferred</em>, and the caller
 *       must look again a little later ({@link #wakeIfStalled}): a fast device can still take long over one
 *       request (a page that is not in memory, a failing sector), and the requests behind it must not wait;
 *   <li>while it is slow (O_DIRECT on a disk or an SSD: tens of microseconds and more inside the kernel), every
 *       submission that finds more requests queued than wake-ups under way wakes one more thread, so the kernel
 *       sees the whole queue depth, as with the old queue.
 * </ul>
 * No request is stranded: a request is queued only while some thread will look at the queue again (one that is
 * executing, or one with a wake-up under way, which does not park until the queue is empty), or the submission
 * wakes one; and a deferred one waits behind a slow request at most until the caller's next look.
 *
 * <p>Bound: at most {@code capacity} requests queued. Thread rule: any thread; every state change happens under
 * one lock, so the counts below are exact (a lock-free variant could miss a wake-up and strand a request).
 */
final class IoThreadQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ArrayDeque<FileRequest> queued = new ArrayDeque<>();
    private final int capacity;
    /** Threads waiting on {@link #work}. */
    private int parked;
    /** Wake-ups signalled and not yet taken up by a waiting thread (so a spurious wake-up is told apart). */
    private int wakeups;
    /** Threads inside a request (between taking it and their next {@link #take}). */
    private int executing;
    /** Requests taken so far. */
    private long takenTotal;
    /** True from a deferred submission until {@link #wakeIfStalled} finds the queue empty. */
    private boolean stallCheckDue;
    /** {@link #takenTotal} when the pending stall check was asked for: no change by then means a stall. */
    private long takenAtStallCheck;
    /** Wake-ups signalled so far: for tests and measurements. */
    private long wakeupsTotal;

    /** What {@link #offer} did with a request. */
    enum Offer {
        /** The queue was full; the request was not queued. */
        REFUSED,
        /** Queued; a thread is awake for it, has been woken, or a stall check is already due. */
        QUEUED,
        /** Queued for threads busy with other requests: the caller must call {@link #wakeIfStalled} a little later. */
        DEFERRED
    }

    /** A queue of at most {@code capacity} requests. */
    IoThreadQueue(int capacity) {
        this.capacity = capacity;
    }

    /**
     * Queues {@code request} and wakes a thread if the rule above asks for one.
     *
     * @param deviceFast true if the device's recent requests completed faster than a wake-up
     */
    Offer offer(FileRequest request, boolean deviceFast) {
        lock.lock();
        try {
            if (queued.size() >= capacity) {
                return Offer.REFUSED;
            }
            queued.add(request);
            if (deviceFast && (executing > 0 || wakeups > 0)) {
                if (stallCheckDue) {
                    return Offer.QUEUED;
                }
                stallCheckDue = true;
                takenAtStallCheck = takenTotal;
                return Offer.DEFERRED;
            }
            if (queued.size() > wakeups && parked > wakeups) {
                wake();
            }
            return Offer.QUEUED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The look a {@link Offer#DEFERRED} submission asked for: if no request was taken since then (every awake
     * thread is stuck in a request), wakes a thread for each queued request that has none.
     *
     * @return true if requests are still queued: the caller must look again later
     */
    boolean wakeIfStalled() {
        lock.lock();
        try {
            if (takenTotal == takenAtStallCheck) {
                while (queued.size() > wakeups && parked > wakeups) {
                    wake();
                }
            }
            takenAtStallCheck = takenTotal;
            stallCheckDue = !queued.isEmpty();
            return stallCheckDue;
        } finally {
            lock.unlock();
        }
    }

    private void wake() {
        wakeups++;
        wakeupsTotal++;
        work.signal();
    }

    /**
     * Queues {@code marker} once per thread ({@code count}) and wakes every thread, so each finds one (the stop
     * marker of {@link FileDevice#close()}).
     */
    void offerToAll(FileRequest marker, int count) {
        lock.lock();
        try {
            for (int i = 0; i < count; i++) {
                queued.add(marker);
            }
            wakeups = parked;
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest request, parking while there is none; the caller counts as executing it until its next
     * call. The caller must be one of the I/O threads.
     *
     * @param finishedOne true if the caller has finished a request it took before (false on its first call)
     */
    FileRequest take(boolean finishedOne) throws InterruptedException {
        lock.lock();
        try {
            if (finishedOne) {
                executing--;
            }
            while (queued.isEmpty()) {
                parked++;
                try {
                    awaitWakeup();
                } catch (InterruptedException e) {
                    passOnWakeup();
                    throw e;
                } finally {
                    parked--;
                }
            }
            takenTotal++;
            executing++;
            return queued.poll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until a wake-up is signalled for a waiting thread and takes it (spurious wake-ups wait again). */
    private void awaitWakeup() throws InterruptedException {
        while (wakeups == 0) {
            work.await();
        }
        wakeups--;
    }

    /**
     * A thread leaving by interrupt may have been the one a wake-up was meant for: hand it to another waiting thread,
     * so queued requests are never left with every thread parked.
     */
    private void passOnWakeup() {
        if (wakeups > 0 && parked > 1) {
            work.signal();
        } else {
            wakeups = 0;
        }
    }

    /** Moves every queued request into {@code into}; any thread. */
    void drainTo(List<FileRequest> into) {
        lock.lock();
        try {
            into.addAll(queued);
            queued.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Wake-ups signalled so far; any thread. */
    long wakeupsTotal() {
        lock.lock();
        try {
            return wakeupsTotal;
        } finally {
            lock.unlock();
        }
    }
}

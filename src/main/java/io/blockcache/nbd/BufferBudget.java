package io.blockcache.nbd;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One budget of direct memory for request payloads and reply data, shared by every connection of a server. A
 * reader takes a request's bytes before it allocates or reads anything for it and gives them back once the reply
 * has been written; when the budget is used up the reader waits (and stops reading its socket, so TCP pushes back
 * on the client). Nothing ever fails for lack of budget, and the loop never waits for it.
 *
 * <p>Counted in 4 KiB pages ({@link PayloadBuffers#ALIGNMENT_BYTES}, the unit every buffer capacity is a
 * multiple of), so an int semaphore covers up to 8 TiB. Fair: a large request is not starved by small ones that
 * keep arriving. Why no deadlock: bytes are only held by requests already handed to the loop or queued to a reply
 * writer, and both always finish (the loop completes every request; a writer whose client stops reading is cut
 * off by the reply stall timeout).
 *
 * <p>Thread rule: any thread; {@link #acquire} blocks, so never call it on the loop.
 */
final class BufferBudget {
    private static final int PAGE_BYTES = PayloadBuffers.ALIGNMENT_BYTES;

    private final long bytesMax;
    private final Semaphore pages;
    private final AtomicLong bytesInUse = new AtomicLong();
    private final AtomicLong bytesInUsePeak = new AtomicLong();
    private final AtomicLong waitsTotal = new AtomicLong();

    /** @param bytesMax the budget, a positive multiple of 4 KiB */
    BufferBudget(long bytesMax) {
        if (bytesMax <= 0 || bytesMax % PAGE_BYTES != 0 || bytesMax / PAGE_BYTES > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("buffer budget of " + bytesMax + " bytes is not a positive multiple of "
                    + PAGE_BYTES + " below 8 TiB");
        }
        this.bytesMax = bytesMax;
        this.pages = new Semaphore((int) (bytesMax / PAGE_BYTES), true);
    }

    /**
     * Takes {@code bytes} (a multiple of 4 KiB, at most the budget), waiting while other requests hold too much.
     *
     * @throws InterruptedException if interrupted while waiting (nothing is taken then)
     */
    void acquire(long bytes) throws InterruptedException {
        int count = pages(bytes);
        if (count == 0) {
            return;
        }
        // A timed try honours fairness (the untimed tryAcquire barges past waiters).
        if (!pages.tryAcquire(count, 0, TimeUnit.NANOSECONDS)) {
            waitsTotal.incrementAndGet();
            pages.acquire(count);
        }
        long inUse = bytesInUse.addAndGet(bytes);
        bytesInUsePeak.accumulateAndGet(inUse, Math::max);
    }

    /** Gives back bytes taken by {@link #acquire}. */
    /**
     * Takes {@code bytes} if they are free now and nobody waits ahead (fair, as {@link #acquire}); never blocks,
     * so the loop may call it. A caller that then waits for the bytes counts it once with {@link #countWait}.
     */
    boolean tryAcquire(long bytes) {
        int count = pages(bytes);
        if (count == 0) {
            return true;
        }
        // The timed try with no wait honours fairness (the untimed tryAcquire barges past waiters). Its interrupt
        // check is the only way it can throw: keep the flag and report the bytes as not free.
        boolean taken;
        try {
            taken = pages.tryAcquire(count, 0, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (taken) {
            long inUse = bytesInUse.addAndGet(bytes);
            bytesInUsePeak.accumulateAndGet(inUse, Math::max);
        }
        return taken;
    }

    /** Counts one request that had to wait for the budget ({@link #waitsTotal}). */
    void countWait() {
        waitsTotal.incrementAndGet();
    }

    void release(long bytes) {
        int count = pages(bytes);
        if (count == 0) {
            return;
        }
        long inUse = bytesInUse.addAndGet(-bytes);
        if (inUse < 0) {
            throw new IllegalStateException("buffer budget released " + bytes + " bytes more than were taken");
        }
        pages.release(count);
    }

    long bytesMax() {
        return bytesMax;
    }

    /** Bytes held by requests now. */
    long bytesInUse() {
        return bytesInUse.get();
    }

    /** The most bytes ever held at once; never above {@link #bytesMax}. */
    long bytesInUsePeak() {
        return bytesInUsePeak.get();
    }

    /** Requests that had to wait for budget. */
    long waitsTotal() {
        return waitsTotal.get();
    }

    private int pages(long bytes) {
        if (bytes < 0 || bytes % PAGE_BYTES != 0 || bytes > bytesMax) {
            throw new IllegalArgumentException(bytes + " bytes is not a multiple of " + PAGE_BYTES
                    + " within the budget of " + bytesMax);
        }
        return (int) (bytes / PAGE_BYTES);
    }
}

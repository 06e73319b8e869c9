package io.blockcache.admin;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Saves the drain jobs off the loop thread: the loop hands over the newest list and goes on; one writer thread
 * saves it. Only the newest pending list is kept (older ones are superseded), so the queue is bounded at one. The
 * HTTP thread of a start, pause, resume or cancel waits with {@link #awaitSaved} before it answers, so that an answer
 * the operator saw is on disk.
 *
 * <p>Thread rule: {@link #submit} from the loop; {@link #awaitSaved} and {@link #close} from other threads.
 */
final class DrainJobWriter implements AutoCloseable {
    private final DrainJobStore store;
    private final Consumer<String> warn;
    private final ExecutorService thread;
    private List<DrainJobRecord> pending;
    private long submitted;
    private long saved;
    private boolean scheduled;
    private boolean closed;

    /** @param store null for none (nothing is saved); @param warn told when a save fails */
    DrainJobWriter(DrainJobStore store, Consumer<String> warn) {
        this.store = store;
        this.warn = warn;
        this.thread = store == null ? null : Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "drain-job-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /** Queues {@code jobs} to be saved, replacing any list not yet saved. */
    synchronized void submit(List<DrainJobRecord> jobs) {
        if (thread == null || closed) { // after close: the server is stopping, the file keeps the state before
            return;
        }
        pending = List.copyOf(jobs);
        submitted++;
        if (!scheduled) {
            scheduled = true;
            thread.execute(this::saveAll);
        }
    }

    private void saveAll() {
        while (true) {
            List<DrainJobRecord> jobs;
            long version;
            synchronized (this) {
                if (pending == null) {
                    scheduled = false;
                    notifyAll();
                    return;
                }
                jobs = pending;
                version = submitted;
                pending = null;
            }
            try {
                store.save(jobs);
            } catch (IOException | RuntimeException e) {
                warn.accept("cannot save the drain jobs: " + e.getMessage()
                        + "; a restart would not know the latest state");
            }
            synchronized (this) {
                saved = version;
                notifyAll();
            }
        }
    }

    /** Waits until everything submitted so far is saved (or failed to save); false on timeout. */
    synchronized boolean awaitSaved(Duration timeout) throws InterruptedException {
        long target = submitted;
        long endNs = System.nanoTime() + timeout.toNanos();
        while (saved < target) {
            long leftNs = endNs - System.nanoTime();
            if (leftNs <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, leftNs);
        }
        return true;
    }

    /** Saves what is pending (bounded wait) and ends the thread. */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        try {
            awaitSaved(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            closed = true;
        }
        thread.shutdown();
    }
}

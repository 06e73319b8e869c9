package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands completions from I/O threads to the owning loop in batches: completions queue up lock-free, and one
 * loop task delivers every completion queued by the time it runs, so a burst of completions costs the loop
 * one task and at most one wake-up instead of one each (a profile of 1 MiB writes showed the I/O threads in the
 * loop's task-queue lock for every completion).
 *
 * <p>Order: callbacks run in the order the completions were offered, among those offered by other threads and
 * among those offered on the loop thread; a task delivers the former first. Bound: the queue holds at most one entry
 * per request in flight on the device, which its owner already bounds; a delivery task runs at most
 * {@link #DELIVERIES_PER_TASK_MAX} callbacks and then queues itself again, so it never holds the loop long.
 *
 * <p>Public for the devices outside this package that complete on threads of their own (the NBD client in
 * {@code backing}).
 *
 * <p>Thread rule: {@link #deliver} from any thread; callbacks run on the loop.
 */
public final class CompletionBatcher {
    /** Callbacks per loop task: enough to take a whole queue depth at once, few enough to keep timers fair. */
    static final int DELIVERIES_PER_TASK_MAX = 256;
    /**
     * Loop time a delivery task may take before it queues itself again. A callback that submits an inline transfer
     * (a {@link FileDevice} read the page cache serves) has that completion delivered by the same task, so a chain
     * of large inline reads ran as one task: recovery reading a 64 MiB journal ring in 1 MiB chunks held the loop
     * for 3-6 ms at a time (docs/BENCHMARKS.md "Recovery"). Looked at every {@link #DELIVERIES_BETWEEN_CLOCK_READS}
     * deliveries; a loop whose time does not move (simulation) never stops early.
     */
    static final long TASK_NS_MAX = 1_000_000L;
    static final int DELIVERIES_BETWEEN_CLOCK_READS = 4;

    /** One completion waiting for the loop. */
    private record Completion(IoCallback callback, IoResult result) {
    }

    private final EventLoop loop;
    private final ConcurrentLinkedQueue<Completion> queue = new ConcurrentLinkedQueue<>();
    /**
     * Completions offered on the loop thread itself (a {@link FileDevice}'s inline transfers): no other thread
     * touches them, so they skip the concurrent queue's node and compare-and-set, and are kept as two parallel
     * queues rather than one object each (nothing allocated per request on the loop thread). Loop thread
     * only.
     */
    private final ArrayDeque<IoCallback> localCallbacks = new ArrayDeque<>();
    private final ArrayDeque<IoResult> localResults = new ArrayDeque<>();
    /** True while a delivery task is queued on the loop and has not yet started taking completions. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong dropped = new AtomicLong();
    private final Runnable task = this::run;

    /** A batcher delivering on {@code loop}. */
    public CompletionBatcher(EventLoop loop) {
        this.loop = loop;
    }

    /** Queues {@code callback.complete(result)} for the loop; any thread. */
    public void deliver(IoCallback callback, IoResult result) {
        if (loop.inLoop()) {
            localCallbacks.add(callback);
            localResults.add(result);
        } else {
            queue.offer(new Completion(callback, result));
        }
        schedule();
    }

    /** Completions that could not be delivered because the loop had already stopped; any thread. */
    public long dropped() {
        return dropped.get();
    }

    private void schedule() {
        if (!scheduled.compareAndSet(false, true)) {
            return; // a queued task will take this completion too
        }
        try {
            loop.execute(task);
        } catch (IllegalStateException loopStopped) {
            // The owner is gone (it stopped or failed); nobody is left to tell. Counted, not hidden.
            while (queue.poll() != null) {
                dropped.incrementAndGet();
            }
            if (loop.inLoop()) {
                dropped.addAndGet(localCallbacks.size());
                localCallbacks.clear();
                localResults.clear();
            }
            scheduled.set(false);
        }
    }

    private void run() {
        // Cleared before taking: a completion offered after this point schedules a task of its own.
        scheduled.set(false);
        long startNs = loop.nowNs();
        Completion completion;
        int delivered = 0;
        while (mayDeliver(delivered, startNs) && (completion = queue.poll()) != null) {
            delivered++;
            completion.callback().complete(completion.result());
        }
        IoCallback callback;
        while (mayDeliver(delivered, startNs) && (callback = localCallbacks.poll()) != null) {
            delivered++;
            callback.complete(localResults.poll());
        }
        if (!queue.isEmpty() || !localCallbacks.isEmpty()) {
            schedule();
        }
    }

    /** True while this task may deliver one more completion: under both the count and the time bound. */
    private boolean mayDeliver(int delivered, long startNs) {
        if (delivered >= DELIVERIES_PER_TASK_MAX) {
            return false;
        }
        return delivered % DELIVERIES_BETWEEN_CLOCK_READS != 0 || delivered == 0
                || loop.nowNs() - startNs <= TASK_NS_MAX;
    }
}

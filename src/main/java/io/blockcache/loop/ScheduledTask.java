package io.blockcache.loop;

/**
 * A task due at a time: ordered by due time, ties by the sequence its loop gave it, so both loops run tasks
 * due together in the order they were queued. Cancellable until it runs.
 *
 * <p>Thread rule: the owning loop's thread (a real loop assigns the sequence when the task reaches its heap).
 */
final class ScheduledTask implements Comparable<ScheduledTask>, Timer {
    final long dueNs;
    final Runnable task;
    long sequence;
    boolean cancelled;
    boolean ran;

    ScheduledTask(long dueNs, long sequence, Runnable task) {
        this.dueNs = dueNs;
        this.sequence = sequence;
        this.task = task;
    }

    @Override
    public int compareTo(ScheduledTask other) {
        int byTime = Long.compare(dueNs, other.dueNs);
        return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
    }

    @Override
    public boolean cancel() {
        if (cancelled || ran) {
            return false;
        }
        cancelled = true;
        return true;
    }
}

package io.blockcache.volume;

import io.blockcache.cache.CleanCoverage;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.EventLoop;
import java.util.ArrayDeque;

/**
 * Orders the backing data writes of a cache set after the journal records that remove covered clean copies
 * (docs/FORMAT.md §7 rule 10). A covered clean extent is trusted after a crash; so before any write that may change
 * the backing data under it (a write through or around the cache, a bypassed write, write-zeroes, a trim, writeback,
 * the ordered path) reaches a backing device, the record that removed, overwrote or moved the copy must be durable.
 *
 * <p>How it stays cheap: the index raises {@link CleanCoverage#takeHazard the hazard} only when a covered clean piece
 * leaves it; a backing write that finds no hazard and nothing held goes straight on. One that finds the hazard starts
 * one journal commit and waits for it, and so does every backing write submitted while that commit is in flight
 * (submission order is kept: {@code BackingWriteGate} relies on it); all the writes of a loop turn share the commit.
 * A journal commit costs a cache device flush and one FUA write; it is paid only by writes that overwrite cached
 * clean data that a backing flush covered.
 *
 * <p>If the journal fails, the commit fails, and so does every backing data write from then on: the records that had
 * to come first can never be durable, and which later write would have needed them is not known (found by the fuzz,
 * seed 21 of 2026-12-07: a writeback write that went on after such a failure made a covered copy stale). A failed
 * journal already fails every write into the cache, and needs a restart.
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class CoveredWrites {
    /** A backing write waiting for a commit. */
    private record Held(long commitNeeded, Runnable issue, IoCallback callback) {
    }

    private final CleanCoverage coverage;
    private final MetadataJournal journal;
    private final EventLoop loop;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private long commitsStarted;
    private long commitsDone;
    private long writesHeld;
    /** Set once a commit for a removal failed: that record is never durable, and later writes may need it. */
    private IoResult failure;

    /** Orders the backing writes of the set whose clean coverage is {@code coverage} after {@code journal}. */
    public CoveredWrites(EventLoop loop, CleanCoverage coverage, MetadataJournal journal) {
        this.loop = loop;
        this.coverage = coverage;
        this.journal = journal;
    }

    /**
     * A backing data write is about to be submitted: true if it may go now; false if {@link #hold} must queue it.
     * Starts the commit that a covered removal since the last call needs.
     */
    boolean mayPass() {
        if (coverage.takeHazard()) {
            long id = ++commitsStarted;
            journal.commit(result -> committed(id, result));
        }
        return held.isEmpty() && commitsDone == commitsStarted && failure == null;
    }

    /** Queues a write refused by {@link #mayPass}: {@code issue} runs once every commit started so far is done. */
    void hold(Runnable issue, IoCallback callback) {
        writesHeld++;
        if (failure != null && held.isEmpty()) {
            IoResult failed = failure;
            loop.execute(() -> callback.complete(failed)); // never inside the submitting call
            return;
        }
        held.addLast(new Held(commitsStarted, issue, callback));
    }

    private void committed(long id, IoResult result) {
        if (!result.ok() && failure == null) {
            failure = IoResult.error(result.status(), "the journal record that removes a cached clean copy could not"
                    + " be made durable, so the backing write that would make the copy stale is not sent: "
                    + result.message());
        }
        commitsDone = Math.max(commitsDone, id);
        while (!held.isEmpty() && held.peekFirst().commitNeeded() <= commitsDone) {
            Held next = held.pollFirst();
            if (failure != null) {
                next.callback().complete(failure);
            } else {
                next.issue().run();
            }
        }
    }

    /** Backing writes that waited for a journal commit, since the open. */
    public long writesHeld() {
        return writesHeld;
    }

    /** Journal commits started for backing writes, since the open. */
    public long commitsStarted() {
        return commitsStarted;
    }
}

package io.blockcache.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;

/**
 * The serving member's lease on its replication group (docs/SCALE.md "Replication: lose a node, lose nothing"): while
 * it holds, no other member can have been elected, so the backing fence ({@code device.FencedDevice}) lets this
 * node's writes through. Every entry of the serving term that commits vouches for {@link ReplicaNode#LEASE_MS} from the
 * moment it was sent ({@link #sending}, {@link #committed}): the volume's own batches renew it while writes flow, and
 * an empty entry only when none was sent for {@link ReplicaNode#LEASE_RENEW_MS} (one entry fewer per renewal period
 * for every member to log and sync under load).
 *
 * <p>Real time by nature, which is why it is a class of its own: the lease must end before Raft's real election
 * timeout lets another member lead, so it reads {@link System#nanoTime} and its renewal thread waits for each commit
 * and sleeps between them ({@code rules.EngineRules} exempts exactly this class). Thread rule: {@link #hold} and
 * {@link #release} from serve's threads, never the loop's; {@link #problem}, {@link #sending} and {@link #committed}
 * from any thread.
 */
final class ReplicaLease {
    /** Commits an empty entry of the given serving term; completes when a quorum has it. */
    private final LongFunction<CompletableFuture<Void>> renewal;
    private volatile long term = -1;
    private volatile long untilNs;
    /** When the newest entry that renewed the lease was sent: the next empty entry is due a renewal period later. */
    private volatile long renewedSentNs;
    /** Guards changes of {@link #term}, {@link #untilNs} and {@link #renewedSentNs} together (never held to wait). */
    private final Object guard = new Object();
    private Thread renewing;

    ReplicaLease(LongFunction<CompletableFuture<Void>> renewal) {
        this.renewal = renewal;
    }

    /**
     * Starts renewing the lease for {@code newTerm}, ending any earlier renewal, and waits up to {@code waitMs} for
     * the first renewal to commit.
     *
     * @return true if the lease is held now
     */
    synchronized boolean hold(long newTerm, long waitMs) throws InterruptedException {
        release();
        synchronized (guard) {
            term = newTerm;
            untilNs = System.nanoTime();
            renewedSentNs = untilNs - TimeUnit.MILLISECONDS.toNanos(ReplicaNode.LEASE_RENEW_MS);
        }
        renewing = Thread.ofPlatform().daemon().name("blockcache-replica-lease").start(() -> renew(newTerm));
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (problem(newTerm) != null && System.nanoTime() < deadlineNs) {
            Thread.sleep(10); // polling the renewal thread's first answer, bounded by the deadline
        }
        return problem(newTerm) == null;
    }

    /** Stops renewing; the lease lapses. */
    synchronized void release() {
        synchronized (guard) {
            term = -1;
        }
        if (renewing != null) {
            renewing.interrupt();
            renewing = null;
        }
    }

    /** Null while the lease of {@code servingTerm} holds, else why not: the backing fence's question. */
    String problem(long servingTerm) {
        if (term != servingTerm) {
            return "this node does not serve its replication group in term " + servingTerm;
        }
        long overdueNs = System.nanoTime() - untilNs;
        return overdueNs < 0 ? null : "this node's lease on its replication group lapsed " + overdueNs / 1_000_000
                + " ms ago (no quorum answered in time): another member may serve now";
    }

    /** The lease's clock now, for an entry about to be sent: hand it to {@link #committed} once the entry commits. */
    long sending() {
        return System.nanoTime();
    }

    /**
     * An entry this node appended while serving in {@code entryTerm}, sent at {@code sentNs} ({@link #sending}), was
     * committed and applied in that term: a quorum heard from this leader after {@code sentNs}, as with a renewal.
     */
    void committed(long entryTerm, long sentNs) {
        synchronized (guard) {
            if (term != entryTerm) {
                return;
            }
            long until = sentNs + TimeUnit.MILLISECONDS.toNanos(ReplicaNode.LEASE_MS);
            if (until - untilNs > 0) {
                untilNs = until;
            }
            if (sentNs - renewedSentNs > 0) {
                renewedSentNs = sentNs;
            }
        }
    }

    private void renew(long renewedTerm) {
        long periodNs = TimeUnit.MILLISECONDS.toNanos(ReplicaNode.LEASE_RENEW_MS);
        while (term == renewedTerm && !Thread.currentThread().isInterrupted()) {
            try {
                long dueInNs = renewedSentNs + periodNs - System.nanoTime();
                if (dueInNs > 0) {
                    // renewed lately (by a batch, or the last empty entry): the next empty entry is due then
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(dueInNs) + 1);
                    continue;
                }
                long sentNs = sending();
                renewal.apply(renewedTerm).get(ReplicaNode.LEASE_MS, TimeUnit.MILLISECONDS);
                committed(renewedTerm, sentNs);
            } catch (InterruptedException e) {
                return;
            } catch (ExecutionException | TimeoutException e) {
                // Not renewed: the lease runs out on its own; the next attempt may succeed (a slow quorum), after a
                // pause so that a refusal at once (not leader) does not spin.
                try {
                    Thread.sleep(ReplicaNode.LEASE_RENEW_MS / 4);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }
}

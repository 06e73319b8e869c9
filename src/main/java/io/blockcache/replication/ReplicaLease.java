package io.blockcache.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;

/**
 * The serving member's lease on its replication group (docs/SCALE.md "Replication: lose a node, lose nothing"): while
 * it holds, no other member can have been elected, so the backing fence ({@code device.FencedDevice}) lets this
 * node's writes through. Renewed by a committed empty entry every {@link ReplicaNode#LEASE_RENEW_MS}; each commit
 * vouches for {@link ReplicaNode#LEASE_MS} from the moment its entry was sent.
 *
 * <p>Real time by nature, which is why it is a class of its own: the lease must end before Raft's real election
 * timeout lets another member lead, so it reads {@link System#nanoTime} and its renewal thread waits for each commit
 * and sleeps between them ({@code rules.EngineRules} exempts exactly this class). Thread rule: {@link #hold} and
 * {@link #release} from serve's threads, never the loop's; {@link #problem} from any thread.
 */
final class ReplicaLease {
    /** Commits an empty entry of the given serving term; completes when a quorum has it. */
    private final LongFunction<CompletableFuture<Void>> renewal;
    private volatile long term = -1;
    private volatile long untilNs;
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
        term = newTerm;
        untilNs = System.nanoTime();
        renewing = Thread.ofPlatform().daemon().name("blockcache-replica-lease").start(() -> renew(newTerm));
        long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (problem(newTerm) != null && System.nanoTime() < deadlineNs) {
            Thread.sleep(10); // polling the renewal thread's first answer, bounded by the deadline
        }
        return problem(newTerm) == null;
    }

    /** Stops renewing; the lease lapses. */
    synchronized void release() {
        term = -1;
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

    private void renew(long renewedTerm) {
        while (term == renewedTerm && !Thread.currentThread().isInterrupted()) {
            long sentNs = System.nanoTime();
            try {
                renewal.apply(renewedTerm).get(ReplicaNode.LEASE_MS, TimeUnit.MILLISECONDS);
                long until = sentNs + TimeUnit.MILLISECONDS.toNanos(ReplicaNode.LEASE_MS);
                if (term == renewedTerm && until - untilNs > 0) {
                    untilNs = until;
                }
                Thread.sleep(ReplicaNode.LEASE_RENEW_MS);
            } catch (InterruptedException e) {
                return;
            } catch (ExecutionException | TimeoutException e) {
                // Not renewed: the lease runs out on its own; the next attempt may succeed (a slow quorum).
            }
        }
    }
}

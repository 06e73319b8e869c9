package io.blockcache.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lease of a serving member: what renews it, and what does not (ReplicaLease). */
class ReplicaLeaseTest {
    @Test
    void committedBatchesRenewTheLeaseSoNoEmptyEntryIsSentWhileTheyFlow() throws InterruptedException {
        // Proves: while the serving term's batches commit (one every 20 ms here), they keep the lease and the renewal
        // thread sends no empty entry of its own; before 2026-12-07 it sent one every LEASE_RENEW_MS regardless
        // (about 7 in this 1.5 s), each an entry every member logs and syncs.
        AtomicInteger emptyEntries = new AtomicInteger();
        ReplicaLease lease = new ReplicaLease(term -> {
            emptyEntries.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        });
        try {
            assertThat(lease.hold(7, 5_000)).isTrue();
            int afterHold = emptyEntries.get();
            long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
            long lastNs = System.nanoTime();
            int stalls = 0; // gaps between batches long enough for a renewal to fall due (a loaded machine)
            for (int i = 0; i < 200 && System.nanoTime() < endNs; i++) { // bounded: 75 batches of 20 ms
                lease.committed(7, lease.sending());
                Thread.sleep(20); // paces the stream of batches; nothing waits on it
                long nowNs = System.nanoTime();
                if (nowNs - lastNs > TimeUnit.MILLISECONDS.toNanos(ReplicaNode.LEASE_RENEW_MS * 3 / 4)) {
                    stalls++;
                }
                lastNs = nowNs;
            }
            assertThat(lease.problem(7)).isNull();
            // one empty entry may be on its way when the stream starts; a stall of the test thread may let one through
            assertThat(emptyEntries.get() - afterHold).isLessThanOrEqualTo(1 + stalls);
        } finally {
            lease.release();
        }
    }

    @Test
    void onlyAnEntryOfTheServingTermRenewsTheLease() throws InterruptedException {
        // Proves: a commit vouches for the lead only in the term the lease is held for: an entry of an earlier term
        // (a session this node served before) renews nothing, one of the serving term does.
        ReplicaLease lease = new ReplicaLease(term -> new CompletableFuture<>()); // no empty entry ever commits
        try {
            assertThat(lease.hold(7, 50)).isFalse();
            lease.committed(6, lease.sending());
            assertThat(lease.problem(7)).contains("lapsed");
            lease.committed(7, lease.sending());
            assertThat(lease.problem(7)).isNull();
            assertThat(lease.problem(6)).contains("does not serve");
        } finally {
            lease.release();
        }
    }
}

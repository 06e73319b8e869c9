package io.blockcache.replication;

import java.util.concurrent.CompletableFuture;

/**
 * Where a serving node appends its batches: the Raft log of its group ({@link ReplicaNode}), or a simulated one in
 * tests. The future completes normally once a quorum holds the batch and it was applied, exceptionally if it never
 * will be (lost lead, no quorum in time); futures of successive appends complete in append order.
 */
interface ReplicaLog {
    CompletableFuture<Void> append(byte[] batch);
}

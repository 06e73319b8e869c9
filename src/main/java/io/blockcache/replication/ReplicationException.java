package io.blockcache.replication;

/** A batch the replicated log did not take: the node lost the lead, or its quorum did not answer in time. */
final class ReplicationException extends RuntimeException {
    ReplicationException(String message) {
        super(message);
    }
}

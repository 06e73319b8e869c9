package io.blockcache.nbd;

import java.util.concurrent.atomic.AtomicLong;

/** Live counters shared by a server and its connections; any thread. */
final class NbdCounters {
    final IdleTracker idle = new IdleTracker();
    final AtomicLong accepted = new AtomicLong();
    /** Connections closed at accept because the server was stopping. */
    final AtomicLong refusedStopping = new AtomicLong();
    final AtomicLong refusedConnectionsMax = new AtomicLong();
    final AtomicLong refusedAddressMax = new AtomicLong();
    final AtomicLong handshakeTimeouts = new AtomicLong();
    final AtomicLong idleTimeouts = new AtomicLong();
    final AtomicLong replyStallTimeouts = new AtomicLong();
    final AtomicLong protocolErrors = new AtomicLong();
    final AtomicLong clientsGone = new AtomicLong();
    /** Requests answered ENOMEM because a buffer could not be allocated (the JVM's direct memory ran out). */
    final AtomicLong allocationFailures = new AtomicLong();
    /** TLS handshakes that succeeded, and those that failed (bad certificate, unknown identity, wrong key). */
    final AtomicLong tlsHandshakes = new AtomicLong();
    final AtomicLong tlsHandshakeFailures = new AtomicLong();
    /** Connections refused (an option answered NBD_REP_ERR_TLS_REQD, or closed) because they did not start TLS. */
    final AtomicLong tlsRequiredRefusals = new AtomicLong();
    /** Connections that asked for TLS on a server with TLS off (answered NBD_REP_ERR_POLICY). */
    final AtomicLong tlsOffRefusals = new AtomicLong();
    /** Exports refused to a client (once per export and connection) because of its address, or its PSK user. */
    final AtomicLong exportRefusalsAddress = new AtomicLong();
    final AtomicLong exportRefusalsPskUser = new AtomicLong();
    /** Connections ended by an out-of-memory error elsewhere on their threads. */
    final AtomicLong connectionsOutOfMemory = new AtomicLong();
}

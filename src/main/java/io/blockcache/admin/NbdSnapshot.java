package io.blockcache.admin;

/**
 * The NBD server's counters at one moment, as {@code serve} hands them to the admin API (which may not see the
 * {@code nbd} package itself: docs/ARCHITECTURE.md §3). Counts are since the server started. Immutable.
 *
 * @param connectionsOpen connections being served now
 * @param connectionsAccepted connections accepted, including those then refused
 * @param refusedConnectionsMax connections closed at accept because the total limit was reached
 * @param refusedAddressMax connections closed at accept because their address was at its limit
 * @param handshakeTimeouts connections closed for not finishing the handshake in time
 * @param idleTimeouts connections closed for being idle too long
 * @param replyStallTimeouts connections closed because the client stopped reading its replies
 * @param protocolErrors connections closed because the client broke the protocol
 * @param requestsInFlight requests received and not yet answered
 * @param bufferBytesMax the buffer budget over all connections
 * @param bufferBytesInUse buffer bytes held by requests now
 * @param bufferBytesInUsePeak the most buffer bytes held at once
 * @param bufferWaits requests that waited for buffer budget
 * @param allocationFailures requests answered ENOMEM because their buffer could not be allocated
 * @param connectionsOutOfMemory connections ended by an out-of-memory error on their threads
 * @param tlsHandshakes TLS handshakes that succeeded
 * @param tlsHandshakeFailures TLS handshakes that failed (each closed its connection)
 * @param tlsRequiredRefusals connections refused because they did not start TLS where it is required
 * @param tlsOffRefusals connections that asked for TLS on a server with TLS off
 * @param exportRefusalsAddress exports refused to a client outside their address allow-list (once per export and
 *     connection)
 * @param exportRefusalsPskUser exports refused to a client whose PSK user is not in their allow-list
 */
public record NbdSnapshot(long connectionsOpen, long connectionsAccepted, long refusedConnectionsMax,
                          long refusedAddressMax, long handshakeTimeouts, long idleTimeouts, long replyStallTimeouts,
                          long protocolErrors, long requestsInFlight, long bufferBytesMax, long bufferBytesInUse,
                          long bufferBytesInUsePeak, long bufferWaits, long allocationFailures,
                          long connectionsOutOfMemory, long tlsHandshakes, long tlsHandshakeFailures,
                          long tlsRequiredRefusals, long tlsOffRefusals, long exportRefusalsAddress,
                          long exportRefusalsPskUser) {
}

package io.blockcache.nbd;

/**
 * The NBD server's counters at one moment (since start), for {@code /api/stats} and {@code /metrics}. Immutable.
 *
 * @param connectionsOpen connections being served now
 * @param connectionsAccepted connections accepted, including those then refused
 * @param refusedConnectionsMax connections closed at accept because {@link NbdLimits#connectionsMax} were open
 * @param refusedAddressMax connections closed at accept because their address had
 *     {@link NbdLimits#connectionsPerAddressMax} open
 * @param handshakeTimeouts connections closed for not finishing the handshake in time
 * @param idleTimeouts connections closed for being idle too long
 * @param replyStallTimeouts connections closed because the client stopped reading replies
 * @param protocolErrors connections closed because the client broke the protocol
 * @param requestsInFlight requests received and not yet answered
 * @param bufferBytesMax the buffer budget
 * @param bufferBytesInUse buffer bytes held by requests now
 * @param bufferBytesInUsePeak the most buffer bytes ever held at once (never above the budget)
 * @param bufferWaits requests that waited for buffer budget
 * @param allocationFailures requests answered ENOMEM because the JVM could not allocate their buffer
 * @param connectionsOutOfMemory connections ended by an out-of-memory error on their threads
 * @param tlsHandshakes TLS handshakes that succeeded
 * @param tlsHandshakeFailures TLS handshakes that failed (a certificate that does not verify, an unknown PSK
 *     identity, a wrong key, a client that is no TLS client); each closed its connection
 * @param tlsRequiredRefusals connections refused because they did not start TLS on a server that requires it
 * @param tlsOffRefusals connections that asked for TLS on a server with TLS off
 * @param exportRefusalsAddress exports refused to a client whose address is outside their allow-list (once per
 *     export and connection)
 * @param exportRefusalsPskUser exports refused to a client whose PSK user is not in their allow-list (or that has
 *     none)
 */
public record NbdServerStats(int connectionsOpen, long connectionsAccepted, long refusedConnectionsMax,
                             long refusedAddressMax, long handshakeTimeouts, long idleTimeouts,
                             long replyStallTimeouts, long protocolErrors, long requestsInFlight, long bufferBytesMax,
                             long bufferBytesInUse, long bufferBytesInUsePeak, long bufferWaits,
                             long allocationFailures, long connectionsOutOfMemory, long tlsHandshakes,
                             long tlsHandshakeFailures, long tlsRequiredRefusals, long tlsOffRefusals,
                             long exportRefusalsAddress, long exportRefusalsPskUser) {
}

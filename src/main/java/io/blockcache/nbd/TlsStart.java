package io.blockcache.nbd;

import io.blockcache.log.EventName;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.function.BooleanSupplier;

/**
 * Runs one connection's TLS handshake after its NBD_OPT_STARTTLS was acknowledged, and tells the operator how it
 * went: a success is counted; a failure is counted, logged in one line (the TLS library's reason: a certificate
 * that does not verify, an unknown PSK identity, a wrong key, bytes that are no TLS) and ends the connection only.
 *
 * <p>Thread rule: the connection's reader thread.
 */
final class TlsStart {
    /** A TLS handshake that failed, already counted and logged: ends the connection and nothing else. */
    static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;

        Failed(Throwable cause) {
            super(cause);
        }
    }

    private TlsStart() {
    }

    /**
     * @param closedByWatchdog true if the watchdog closed the socket (a handshake timeout, which it counts and logs)
     * @return the TLS session's channel
     * @throws Failed if the handshake failed (counted and logged)
     * @throws IOException if the watchdog closed the connection meanwhile
     */
    static TlsChannel handshake(ConnectionContext context, SocketChannel socket, String peer,
                                BooleanSupplier closedByWatchdog) throws IOException {
        TlsChannel session;
        try {
            session = context.tls().credentials().handshaker().handshake(socket);
        } catch (IOException | RuntimeException e) {
            // A RuntimeException too: whatever a malformed handshake makes the TLS library throw ends this
            // connection with one line, not the reader thread with a stack trace.
            if (closedByWatchdog.getAsBoolean() && e instanceof IOException io) {
                throw io;
            }
            context.counters().tlsHandshakeFailures.incrementAndGet();
            context.log().line(EventName.NBD_TLS_FAILED, peer, "TLS handshake failed: " + reason(e)
                    + "; connection closed");
            throw new Failed(e);
        }
        context.counters().tlsHandshakes.incrementAndGet();
        return session;
    }

    /** An exception's message on one line, for the operator. */
    private static String reason(Exception e) {
        String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return message.replaceAll("\\s+", " ").strip();
    }
}

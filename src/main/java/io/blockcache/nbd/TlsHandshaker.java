package io.blockcache.nbd;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * Runs the server side of a TLS handshake on a connection's socket, right after the server acknowledged
 * NBD_OPT_STARTTLS. Implementations hold credentials loaded and checked once at start-up
 * ({@link TlsCredentials}) and are shared by every connection.
 *
 * <p>Thread rule: any thread; each call blocks its (virtual) thread until the handshake ends.
 */
interface TlsHandshaker {
    /**
     * Runs the handshake.
     *
     * @param socket the connection's socket, in blocking mode, with nothing read past the STARTTLS option
     * @return the session's plaintext channel over {@code socket}
     * @throws IOException if the handshake failed (its message says why: a certificate that does not verify, an
     *     unknown PSK identity, a wrong key) or the client went away
     */
    TlsChannel handshake(SocketChannel socket) throws IOException;

    /** What kind of credentials, for the operator (e.g. "X.509, client certificates verified"). */
    String description();
}

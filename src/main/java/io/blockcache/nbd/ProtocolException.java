package io.blockcache.nbd;

/**
 * A client broke a mandatory rule of the protocol in a way that leaves no answer but a hard disconnect
 * (a wrong magic, a frame that cannot be parsed, a length no server should buffer). The message says what
 * was received and what was expected; it is for logs, never sent to the client.
 */
public final class ProtocolException extends Exception {
    public ProtocolException(String message) {
        super(message);
    }
}

package io.blockcache.nbd;

import io.blockcache.loop.EventLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

/**
 * Serves volumes over NBD (fixed newstyle handshake, structured replies, multi-conn). Each connection runs on
 * its own virtual thread; requests are handed to the volumes' loop and replies written by the connection's
 * writer, so the loop never blocks on a socket.
 *
 * <p>Thread rule: construct, {@link #start}, {@link #stopAccepting}, {@link #awaitIdle} and {@link #close}
 * from any thread except the loop's.
 */
public final class NbdServer implements AutoCloseable {
    /**
     * @param bindAddress where to listen (tests and the default bind 127.0.0.1)
     * @param exports volumes by export name; the first one is also the default export (empty name)
     * @param loop the loop that owns the volumes
     */
    public NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop) {
        throw new UnsupportedOperationException("not yet");
    }

    /** Binds and starts accepting connections. */
    public void start() throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        throw new UnsupportedOperationException("not yet");
    }

    /** Stops accepting new connections; open connections continue. */
    public void stopAccepting() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Waits until no request is in flight on any connection, at most {@code timeout}.
     *
     * @return true if idle
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        throw new UnsupportedOperationException("not yet");
    }

    /** Stops accepting, closes every connection (requests in flight still get their replies if possible). */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not yet");
    }
}

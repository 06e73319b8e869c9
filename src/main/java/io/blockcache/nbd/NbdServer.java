package io.blockcache.nbd;

import io.blockcache.loop.EventLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves volumes over NBD (fixed newstyle handshake, structured replies, multi-conn). Each connection runs on
 * its own virtual thread; requests are handed to the volumes' loop and replies written by the connection's
 * writer, so the loop never blocks on a socket.
 *
 * <p>Protocol choices (block sizes, error values, FAST_ZERO, metadata contexts) are documented on
 * {@link Negotiation}, {@link CommandExecutor} and {@link MetaContext}. Limits: {@link #CONNECTIONS_MAX}
 * connections, each bounded as {@link Connection} says.
 *
 * <p>Thread rule: construct, {@link #start}, {@link #stopAccepting}, {@link #awaitIdle} and {@link #close}
 * from any thread except the loop's. Close the server before the loop: requests in flight need the loop to
 * complete.
 */
public final class NbdServer implements AutoCloseable {
    /** Connections served at once; more are closed at accept. 64 MiB of buffers each bounds memory. */
    public static final int CONNECTIONS_MAX = 256;
    /** How long {@link #close} lets connections answer what they have before cutting them off. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

    /** Live counters shared with the connections; any thread. */
    static final class Counters {
        final IdleTracker idle = new IdleTracker();
        final AtomicLong accepted = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong protocolErrors = new AtomicLong();
        final AtomicLong clientsGone = new AtomicLong();
    }

    private final InetSocketAddress bindAddress;
    private final Exports exports;
    private final EventLoop loop;
    private final Counters counters = new Counters();
    private final ConcurrentSkipListMap<Long, Connection> connections = new ConcurrentSkipListMap<>();
    private final AtomicLong nextConnectionId = new AtomicLong();
    private volatile ServerSocketChannel listener;
    private volatile InetSocketAddress boundAddress;
    private volatile Thread acceptor;
    /** Set by {@link #stopAccepting} before the listener closes: a connection the acceptor gets after it is refused. */
    private volatile boolean acceptingStopped;

    /**
     * @param bindAddress where to listen (tests and the default bind 127.0.0.1)
     * @param exports volumes by export name, non-empty names; the first in the map's iteration order is
     *     also the default export (empty name), so pass an ordered map when there are several
     * @param loop the loop that owns the volumes
     */
    public NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop) {
        this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
        this.exports = new Exports(Objects.requireNonNull(exports, "exports"));
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    /** Binds and starts accepting connections. */
    public synchronized void start() throws IOException {
        if (listener != null) {
            throw new IllegalStateException("NBD server already started");
        }
        listener = ServerSocketChannel.open().bind(bindAddress);
        boundAddress = (InetSocketAddress) listener.getLocalAddress();
        acceptor = Thread.ofVirtual().name("nbd-accept").start(this::acceptLoop);
    }

    /** The bound address (with the real port when 0 was asked); still answers after {@link #stopAccepting}. */
    public InetSocketAddress address() {
        InetSocketAddress bound = boundAddress;
        if (bound == null) {
            throw new IllegalStateException("NBD server not started");
        }
        return bound;
    }

    /**
     * Stops accepting new connections and waits (at most {@link #CLOSE_GRACE}) for the acceptor to end; open
     * connections continue. Once this returns no new connection is served: closing the listener does not stop an
     * accept already under way on a virtual thread (the socket stays open until that thread runs again and may
     * still take a connection from the backlog), so a connection accepted after the stop is closed unserved.
     */
    public void stopAccepting() {
        acceptingStopped = true;
        ServerSocketChannel bound = listener;
        if (bound != null) {
            try {
                bound.close();
            } catch (IOException e) {
                counters.clientsGone.incrementAndGet();
            }
        }
        Thread running = acceptor;
        if (running != null) {
            try {
                running.join(CLOSE_GRACE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the flag above still refuses anything accepted later
            }
        }
    }

    /**
     * Waits until no request is in flight on any connection, at most {@code timeout}.
     *
     * @return true if idle
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return counters.idle.awaitIdle(timeout.toNanos(), loop);
    }

    /**
     * Stops accepting, closes every connection (requests in flight still get their replies if possible) and
     * returns once each has ended and left {@link #connectionsOpen()}, or {@link #CLOSE_GRACE} has passed.
     */
    @Override
    public void close() {
        stopAccepting(); // first: the acceptor has ended, so no connection is added behind the loops below
        for (Connection connection : connections.values()) {
            connection.shutdownInput();
        }
        long deadlineNs = loop.nowNs() + CLOSE_GRACE.toNanos(); // the loop's clock: real time, never simulated here
        boolean interrupted = false;
        for (Connection connection : connections.values()) {
            try {
                if (!connection.awaitClosed(Math.max(0, deadlineNs - loop.nowNs()))) {
                    connection.forceClose();
                }
            } catch (InterruptedException e) {
                interrupted = true;
                connection.forceClose();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Connections open now. */
    public int connectionsOpen() {
        return connections.size();
    }

    /** Requests received and not yet answered, over all connections. */
    public long requestsInFlight() {
        return counters.idle.inFlight();
    }

    /** Connections ended because the client broke the protocol (bad magic, bad flags, oversized frames). */
    public long protocolErrorsTotal() {
        return counters.protocolErrors.get();
    }

    private void acceptLoop() {
        while (true) {
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (ClosedChannelException e) {
                return; // stopAccepting
            } catch (IOException e) {
                counters.clientsGone.incrementAndGet(); // e.g. a connection reset before accept; keep serving
                continue;
            }
            counters.accepted.incrementAndGet();
            if (acceptingStopped) {
                counters.refused.incrementAndGet();
                closeQuietly(channel);
                return;
            }
            if (connections.size() >= CONNECTIONS_MAX) {
                counters.refused.incrementAndGet();
                closeQuietly(channel);
                continue;
            }
            long id = nextConnectionId.incrementAndGet();
            try {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                closeQuietly(channel);
                continue;
            }
            Connection connection = new Connection(id, channel, exports, loop, counters,
                    () -> connections.remove(id));
            connections.put(id, connection);
            Thread.ofVirtual().name("nbd-connection-" + id).start(connection);
        }
    }

    private void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            counters.clientsGone.incrementAndGet();
        }
    }
}

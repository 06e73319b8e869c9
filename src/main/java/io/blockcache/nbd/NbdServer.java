package io.blockcache.nbd;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import jdk.net.ExtendedSocketOptions;

/**
 * Serves volumes over NBD (fixed newstyle handshake, structured replies, multi-conn). Each connection runs on
 * its own virtual thread; requests are handed to the volumes' loop and replies written by the connection's
 * writer, so the loop never blocks on a socket.
 *
 * <p>Protocol choices (block sizes, error values, FAST_ZERO, metadata contexts) are documented on
 * {@link Negotiation}, {@link CommandExecutor} and {@link MetaContext}. Limits ({@link NbdLimits}): connections in
 * total and per client address (more are closed at accept), a handshake timeout, an optional idle timeout and a
 * reply stall timeout ({@link ConnectionWatchdog}), TCP keepalive, and one buffer budget for every connection
 * ({@link BufferBudget}); each connection is bounded as {@link Connection} says. TLS as {@link TlsSettings} says
 * (NBD_OPT_STARTTLS; X.509 or PSK: {@link TlsCredentials}). What it refuses or cuts off is
 * counted ({@link #stats}) and logged, rate-limited, to the operator ({@link OperatorLog}).
 *
 * <p>Thread rule: construct, {@link #start}, {@link #stopAccepting}, {@link #awaitIdle} and {@link #close}
 * from any thread except the loop's. Close the server before the loop: requests in flight need the loop to
 * complete.
 */
public final class NbdServer implements AutoCloseable {
    /** How long {@link #close} lets connections answer what they have before cutting them off. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(10);
    /** Keepalive probes after the first, and their spacing: a dead peer is found 60 s after the first probe. */
    static final int KEEPALIVE_PROBES = 6;
    static final int KEEPALIVE_INTERVAL_SECONDS = 10;

    private final InetSocketAddress bindAddress;
    private final EventLoop loop;
    private final NbdLimits limits;
    private final NbdCounters counters = new NbdCounters();
    private final ConnectionContext context;
    private final ConnectionWatchdog watchdog;
    private final ConcurrentSkipListMap<Long, Connection> connections = new ConcurrentSkipListMap<>();
    /** Open connections per client address (only counts; no iteration, so hash order never matters). */
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
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
        this(bindAddress, exports, loop, NbdLimits.DEFAULTS, EventSink.NONE);
    }

    /**
     * @param limits what clients are allowed
     * @param log takes the server's events ({@code nbd.*}): each connection's start and end, and a warning per
     *     refused connection, timeout, protocol violation or allocation failure (rate-limited), from the server's
     *     threads and the loop
     */
    public NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop, NbdLimits limits,
                     EventSink log) {
        this(bindAddress, exports, loop, limits, TlsSettings.OFF, log, new PayloadBuffers());
    }

    /**
     * @param tls whether clients may or must upgrade to TLS, with the credentials loaded at start-up
     * @param log as above; also one line per failed TLS handshake and per client refused for want of TLS
     */
    public NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop, NbdLimits limits,
                     TlsSettings tls, EventSink log) {
        this(bindAddress, exports, loop, limits, tls, Map.of(), log, new PayloadBuffers());
    }

    /**
     * @param access who may use each export (address ranges, PSK users), by export name; exports not named are open
     *     to every client
     * @param log as above; also one line per export refused to a client (once per connection)
     * @throws IllegalArgumentException if {@code access} names an export that is not served
     */
    public NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop, NbdLimits limits,
                     TlsSettings tls, Map<String, ExportAccess> access, EventSink log) {
        this(bindAddress, exports, loop, limits, tls, access, log, new PayloadBuffers());
    }

    /** As above with a given buffer pool (tests inject allocation failures through it). */
    NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop, NbdLimits limits,
              TlsSettings tls, EventSink log, PayloadBuffers buffers) {
        this(bindAddress, exports, loop, limits, tls, Map.of(), log, buffers);
    }

    /** The general form (tests give a buffer pool and allow-lists). */
    NbdServer(InetSocketAddress bindAddress, Map<String, Volume> exports, EventLoop loop, NbdLimits limits,
              TlsSettings tls, Map<String, ExportAccess> access, EventSink log, PayloadBuffers buffers) {
        this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.limits = Objects.requireNonNull(limits, "limits");
        OperatorLog operatorLog = new OperatorLog(log, loop);
        BufferBudget budget = new BufferBudget(limits.bufferBytesMax() & -PayloadBuffers.ALIGNMENT_BYTES);
        this.context = new ConnectionContext(new Exports(Objects.requireNonNull(exports, "exports"),
                Objects.requireNonNull(access, "access")), loop, limits,
                counters, buffers, budget, operatorLog, Objects.requireNonNull(tls, "tls"));
        this.watchdog = new ConnectionWatchdog(connections.values(), limits, counters, operatorLog, loop);
    }

    /**
     * Serves {@code volume} as export {@code name} to connections negotiated from now on (a volume added to the running
     * cache). Any thread.
     */
    public void addExport(String name, Volume volume) {
        context.exports().add(name, volume);
    }

    /**
     * Stops offering export {@code name} to new connections (a volume being removed); connections that negotiated it
     * keep it, and their requests fail once the volume is closed, until {@link #disconnectRemoved} ends them. Any
     * thread.
     *
     * @return true if there was such an export
     */
    public boolean removeExport(String name) {
        return context.exports().remove(name);
    }

    /**
     * Ends every connection to export {@code name}, which {@link #removeExport} withdrew and whose volume is now gone:
     * each stops reading, answers what it has in flight (the closed volume fails it: nothing is acknowledged as
     * written to a volume that is gone) and closes; one not ended within {@link #CLOSE_GRACE} is cut off. Returns once
     * they have ended, and logs how many there were. Any thread but the loop's.
     *
     * @return how many connections were ended
     */
    public int disconnectRemoved(String name) {
        List<Connection> ending = new ArrayList<>();
        for (Connection connection : connections.values()) {
            Export export = connection.export();
            if (export != null && export.name().equals(name) && !context.exports().offers(export)) {
                ending.add(connection);
            }
        }
        context.exports().forget(name);
        end(ending);
        context.log().connection(LogEvent.of(EventName.NBD_EXPORT_REMOVED, "export \"" + name + "\" removed: "
                + ending.size() + " client connection" + (ending.size() == 1 ? "" : "s") + " disconnected")
                .with("export", name).with("clients", ending.size()));
        return ending.size();
    }

    /** Binds and starts accepting connections. */
    public synchronized void start() throws IOException {
        start(ServerSocketChannel.open().bind(bindAddress));
    }

    /**
     * Starts accepting connections on {@code bound}, a listener the caller bound already (serve binds before it opens
     * any file, so that a port in use refuses the start before anything is written); the server owns it from here.
     */
    public synchronized void start(ServerSocketChannel bound) throws IOException {
        if (listener != null) {
            throw new IllegalStateException("NBD server already started");
        }
        listener = bound;
        boundAddress = (InetSocketAddress) listener.getLocalAddress();
        acceptor = Thread.ofVirtual().name("nbd-accept").start(this::acceptLoop);
        watchdog.start();
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
     * Waits until no request is in flight on any connection, at most {@code timeout}. A request a connection's reader
     * is still admitting (taking its buffer, reading its payload) is not in flight yet: it is counted once handed on,
     * so idle does not mean that every buffer is back; a connection that has ended ({@link #connectionsOpen()}) has
     * given back everything its requests held.
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
        watchdog.stop();
        end(connections.values());
    }

    /**
     * Ends {@code ending}: stops their input, so each answers what it has in flight and closes, and waits until each
     * has ended, cutting off those still open after {@link #CLOSE_GRACE}.
     */
    private void end(Collection<Connection> ending) {
        for (Connection connection : ending) {
            connection.shutdownInput();
        }
        long deadlineNs = loop.nowNs() + CLOSE_GRACE.toNanos(); // the loop's clock: real time, never simulated here
        boolean interrupted = false;
        for (Connection connection : ending) {
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

    /** The limits this server enforces. */
    public NbdLimits limits() {
        return limits;
    }

    /** The counters now; any thread. */
    public NbdServerStats stats() {
        BufferBudget budget = context.budget();
        return new NbdServerStats(connections.size(), counters.accepted.get(), counters.refusedConnectionsMax.get(),
                counters.refusedAddressMax.get(), counters.handshakeTimeouts.get(), counters.idleTimeouts.get(),
                counters.replyStallTimeouts.get(), counters.protocolErrors.get(), counters.idle.inFlight(),
                budget.bytesMax(), budget.bytesInUse(), budget.bytesInUsePeak(), budget.waitsTotal(),
                counters.allocationFailures.get(), counters.connectionsOutOfMemory.get(), counters.tlsHandshakes.get(),
                counters.tlsHandshakeFailures.get(), counters.tlsRequiredRefusals.get(), counters.tlsOffRefusals.get(),
                counters.exportRefusalsAddress.get(), counters.exportRefusalsPskUser.get());
    }

    /** Open connections whose transmission runs on the loop thread ({@link LoopTransport}); for tests. */
    long connectionsOnLoop() {
        return connections.values().stream().filter(Connection::servedOnLoop).count();
    }

    /** The watchdog, for tests that drive its checks. */
    ConnectionWatchdog watchdog() {
        return watchdog;
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
                counters.refusedStopping.incrementAndGet();
                closeQuietly(channel);
                return;
            }
            try {
                admit(channel);
            } catch (OutOfMemoryError e) {
                // Not even a connection's thread could be made: refuse this one and keep accepting, so that the
                // clients already served (and those that come once memory is back) are not locked out.
                counters.connectionsOutOfMemory.incrementAndGet();
                context.log().line(EventName.NBD_OUT_OF_MEMORY, null, "out of memory accepting a connection ("
                        + e.getMessage() + "); refused");
                closeQuietly(channel);
            }
        }
    }

    /** Serves a new connection, or closes it at once if a connection limit is reached. */
    private void admit(SocketChannel channel) {
        InetAddress address;
        try {
            address = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
            configure(channel);
        } catch (IOException e) {
            counters.clientsGone.incrementAndGet();
            closeQuietly(channel);
            return;
        }
        String peer = address.getHostAddress();
        if (connections.size() >= limits.connectionsMax()) {
            counters.refusedConnectionsMax.incrementAndGet();
            context.log().line(EventName.NBD_REFUSED, peer, "refused, " + limits.connectionsMax()
                    + " connections are open (the limit)");
            closeQuietly(channel);
            return;
        }
        // Only this thread adds, so the count cannot pass the limit between this check and the put below.
        if (perAddress.merge(address, 1, Integer::sum) > limits.connectionsPerAddressMax()) {
            forget(address);
            counters.refusedAddressMax.incrementAndGet();
            context.log().line(EventName.NBD_REFUSED, peer, "refused, " + limits.connectionsPerAddressMax()
                    + " connections from this address are open (the limit per address)");
            closeQuietly(channel);
            return;
        }
        long id = nextConnectionId.incrementAndGet();
        Connection connection = new Connection(id, channel, address, context, loop.nowNs(), () -> {
            connections.remove(id);
            forget(address);
        });
        connections.put(id, connection);
        Thread.ofVirtual().name("nbd-connection-" + id).start(connection);
    }

    private void forget(InetAddress address) {
        perAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
    }

    /** No Nagle delay for small replies; keepalive so that a vanished peer frees its slot. */
    private void configure(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        long keepaliveIdleSeconds = limits.tcpKeepaliveIdle().toSeconds();
        if (keepaliveIdleSeconds <= 0) {
            return;
        }
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        // Linux and macOS take the timings; elsewhere the system's defaults apply (typically 2 h before probing).
        if (channel.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
            channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, (int) keepaliveIdleSeconds);
            channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
            channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
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

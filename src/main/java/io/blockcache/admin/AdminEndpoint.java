package io.blockcache.admin;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The admin API's listening socket and worker threads, with the handler that answers behind it swapped in one step:
 * {@code serve} binds it before recovery and answers with {@link RecoveryAdmin}, then hands it to the
 * {@link AdminServer} once the cache set is open, so the port answers throughout and never changes. Every request
 * passes the {@link AdminGuard} first (the bearer token), whichever handler answers.
 *
 * <p>Every client is bounded ({@link AdminLimits}): each request runs on a thread of its own ({@link AdminWorkers})
 * under a deadline for reading it and one for answering it ({@link RequestDeadline}), requests in progress are capped
 * in total and per client address, and the body is read whole, at most {@link AdminServer#REQUEST_BODY_BYTES_MAX}
 * bytes, before any handler or the guard sees the request ({@link RequestIntake}). So a client that sends half a
 * request and waits holds one thread until its deadline and delays no one else. Why the JDK's server and not an
 * embedded one (Jetty, Undertow): the bounds it lacks take four small classes here, with no dependency and no change
 * to the handlers; its own bounds ({@code sun.net.httpserver.maxReqTime} and the like) are not used, because they
 * are system properties read once per JVM, in whole seconds, for every server in the process, so neither an
 * embedding application nor a test could choose its own (docs/OPERATIONS.md §10). What this design cannot do: a
 * client must send its headers before its address is known, so a flood of connections that each send half a
 * request line is bounded by the total cap and the read deadline, not by the per-address cap.
 *
 * <p>Thread rule: any thread except a cache set's loop; requests run on the worker threads.
 */
public final class AdminEndpoint implements AutoCloseable {
    /** How long close waits for requests being answered. */
    private static final long CLOSE_WAIT_MS_MAX = AdminServer.LOOP_ANSWER_MS_MAX;

    private final HttpServer server;
    private final AdminWorkers workers;
    private final AddressLimit addresses;
    private final AdminGuard guard;
    private volatile HttpHandler handler;
    private boolean closed;

    private AdminEndpoint(HttpServer server, AdminWorkers workers, AddressLimit addresses, HttpHandler handler,
                          AdminGuard guard) {
        this.server = server;
        this.workers = workers;
        this.addresses = addresses;
        this.handler = handler;
        this.guard = guard;
    }

    /** Binds {@code address} (port 0 picks a free port) and starts answering with {@code handler}; no token. */
    public static AdminEndpoint bind(InetSocketAddress address, HttpHandler handler) throws IOException {
        return bind(address, handler, AdminGuard.OPEN);
    }

    /** As above, letting through only the requests {@code guard} admits, under the default limits. */
    public static AdminEndpoint bind(InetSocketAddress address, HttpHandler handler, AdminGuard guard)
            throws IOException {
        return bind(address, handler, guard, AdminLimits.DEFAULTS);
    }

    /** As above, with every client bounded by {@code limits}. */
    public static AdminEndpoint bind(InetSocketAddress address, HttpHandler handler, AdminGuard guard,
                                     AdminLimits limits) throws IOException {
        // The accept queue holds as many connections as may be in progress (the JDK's default depends on the
        // system): the server accepts one per turn of its selector, and a burst that overflows the queue has its SYNs
        // dropped, which costs every client caught in it a one-second retransmit (measured 2026-12-07: 200
        // connections at once took 6 to 8 s to connect with a queue of 16 on a loaded two-core machine, 0.1 s now).
        HttpServer server = HttpServer.create(address, limits.requestsMax());
        AdminWorkers workers = new AdminWorkers(limits);
        AddressLimit addresses = new AddressLimit(limits.requestsPerAddressMax());
        AdminEndpoint endpoint = new AdminEndpoint(server, workers, addresses, handler, guard);
        server.setExecutor(workers);
        server.createContext("/", new RequestIntake(addresses, guard, () -> endpoint.handler));
        server.start();
        return endpoint;
    }

    /** Every request from now on goes to {@code next}. */
    public void answerWith(HttpHandler next) {
        handler = next;
    }

    /** The guard every request passes (its counters are in the stats). */
    public AdminGuard guard() {
        return guard;
    }

    /** The admin API's own counters: the token's refusals, the limits' refusals and timeouts. */
    public StatsSnapshot.AdminSnapshot counters() {
        return new StatsSnapshot.AdminSnapshot(guard.tokenRequired(), guard.refusals(), addresses.refusals(),
                workers.refusedRequestsMax(), workers.timeouts());
    }

    /** Requests in progress now, from their first byte to the end of their answer. */
    int requestsInProgress() {
        return workers.requestsInProgress();
    }

    /** Requests from {@code client} in progress now, counted once their headers were read. */
    int requestsInProgress(java.net.InetAddress client) {
        return addresses.inProgress(client);
    }

    /** The bound address (with the real port when 0 was asked). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Stops listening and ends the worker threads; requests being answered get at most one second. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.stop(1);
        try {
            workers.close(CLOSE_WAIT_MS_MAX);
        } catch (InterruptedException e) {
            workers.close();
            Thread.currentThread().interrupt();
        }
    }
}

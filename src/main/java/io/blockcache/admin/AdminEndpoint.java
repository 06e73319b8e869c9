package io.blockcache.admin;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The admin API's listening socket and worker threads, with the handler that answers behind it swapped in one step:
 * {@code serve} binds it before recovery and answers with {@link RecoveryAdmin}, then hands it to the
 * {@link AdminServer} once the cache set is open, so the port answers throughout and never changes. Every request
 * passes the {@link AdminGuard} first (the bearer token), whichever handler answers.
 *
 * <p>Thread rule: any thread except a cache set's loop; requests run on the worker threads.
 */
public final class AdminEndpoint implements AutoCloseable {
    /** HTTP worker threads: the API serves a few operators and a scraper, not clients of the data path. */
    static final int HTTP_THREADS = 4;
    /** Connections waiting to be accepted; the JDK's default is system dependent. */
    private static final int BACKLOG = 16;
    /** How long close waits for requests being answered. */
    private static final long CLOSE_WAIT_MS_MAX = AdminServer.LOOP_ANSWER_MS_MAX;

    private final HttpServer server;
    private final ExecutorService executor;
    private final AdminGuard guard;
    private volatile HttpHandler handler;
    private boolean closed;

    private AdminEndpoint(HttpServer server, ExecutorService executor, HttpHandler handler, AdminGuard guard) {
        this.server = server;
        this.executor = executor;
        this.handler = handler;
        this.guard = guard;
    }

    /** Binds {@code address} (port 0 picks a free port) and starts answering with {@code handler}; no token. */
    public static AdminEndpoint bind(InetSocketAddress address, HttpHandler handler) throws IOException {
        return bind(address, handler, AdminGuard.OPEN);
    }

    /** As above, letting through only the requests {@code guard} admits. */
    public static AdminEndpoint bind(InetSocketAddress address, HttpHandler handler, AdminGuard guard)
            throws IOException {
        HttpServer server = HttpServer.create(address, BACKLOG);
        ExecutorService executor = Executors.newFixedThreadPool(HTTP_THREADS, runnable -> {
            Thread thread = new Thread(runnable, "admin-http");
            thread.setDaemon(true);
            return thread;
        });
        AdminEndpoint endpoint = new AdminEndpoint(server, executor, handler, guard);
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            if (guard.admit(exchange)) {
                endpoint.handler.handle(exchange);
            }
        });
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
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MS_MAX, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

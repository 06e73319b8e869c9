package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The admin API's door: with a token configured ({@link AdminToken}), every request except the dashboard page
 * ({@code GET /}, {@code /index.html}: static, no data; its script sends the token) must carry it. A request
 * without it, or with a wrong one, gets 401 with a {@code WWW-Authenticate: Bearer} header (RFC 6750 §3) and a
 * one-line JSON error, is counted, and reaches no handler, so it changes nothing. The operator is told once per
 * {@link #LOG_PERIOD_REFUSALS} refusals, so a client guessing tokens cannot flood the log.
 *
 * <p>Thread rule: any thread (the endpoint's workers).
 */
public final class AdminGuard {
    /** Refusals between two log lines: the first, then one line per this many (with the count). */
    static final long LOG_PERIOD_REFUSALS = 1000;
    /** No token: every request is let through (loopback-only servers, or {@code --insecure}). */
    public static final AdminGuard OPEN = new AdminGuard(null, line -> { });

    private final AdminToken token;
    private final Consumer<String> log;
    private final AtomicLong refusals = new AtomicLong();

    /**
     * @param token the token requests must carry, or null for none
     * @param log takes one line for the operator about refused requests (rate-limited as above)
     */
    public AdminGuard(AdminToken token, Consumer<String> log) {
        this.token = token;
        this.log = log;
    }

    /** True if requests need a token. */
    public boolean tokenRequired() {
        return token != null;
    }

    /** Requests refused since start. */
    public long refusals() {
        return refusals.get();
    }

    /**
     * Lets the request through, or answers it 401 (and closes it).
     *
     * @return true if the request may go on to a handler
     */
    boolean admit(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (token == null || path.equals("/") || path.equals("/index.html")) {
            return true;
        }
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (token.accepts(authorization)) {
            return true;
        }
        long refused = refusals.incrementAndGet();
        String reason = authorization == null ? "no bearer token" : "a wrong bearer token";
        if (refused == 1 || refused % LOG_PERIOD_REFUSALS == 0) {
            // The address and path only: never what the client sent, which may be a real token mistyped.
            log.accept("admin: " + exchange.getRemoteAddress().getAddress().getHostAddress() + ": "
                    + exchange.getRequestMethod() + " " + path + " refused (401): " + reason + " (" + refused
                    + " refused since start)");
        }
        try {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"blockcache\"");
            AdminServer.sendJson(exchange, 401, AdminServer.error("this admin API needs a token: send"
                    + " 'Authorization: Bearer TOKEN' (blockcache commands: --admin-token-file FILE; the dashboard:"
                    + " open /#token=TOKEN); the request had " + reason));
        } finally {
            exchange.close();
        }
        return false;
    }
}

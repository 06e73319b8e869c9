package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The first handler every admin request meets once its headers are in: it counts the request against its address
 * ({@link AddressLimit}, 429 beyond), reads the whole body under the request's {@link RequestDeadline} (at most
 * {@link AdminServer#REQUEST_BODY_BYTES_MAX} bytes, 413 beyond), and only then passes it to the {@link AdminGuard}
 * and the handler, with the body in memory. So nothing after this waits for a client: a refusal (401 included) is
 * answered without reading a body that may never come, and the handlers' reads of the body return at once.
 *
 * <p>A request refused here is answered with {@code Connection: close} and its connection is closed without reading
 * what is left of the body: the handler throws, and the JDK's server closes a connection whose exchange failed.
 *
 * <p>Thread rule: the admin workers ({@link AdminWorkers}), one request per thread.
 */
final class RequestIntake implements HttpHandler {
    private final AddressLimit addresses;
    private final AdminGuard guard;
    private final Supplier<HttpHandler> handler;

    /** @param handler the handler that answers admitted requests now (it may change between requests) */
    RequestIntake(AddressLimit addresses, AdminGuard guard, Supplier<HttpHandler> handler) {
        this.addresses = addresses;
        this.guard = guard;
        this.handler = handler;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        RequestDeadline deadline = AdminWorkers.current();
        deadline.headersRead(exchange);
        InetAddress address = exchange.getRemoteAddress().getAddress();
        if (!addresses.tryAcquire(address)) {
            throw refuse(exchange, deadline, 429, addresses.perAddressMax() + " admin requests from "
                    + address.getHostAddress() + " are in progress; retry when one has been answered");
        }
        try {
            byte[] body = readBody(exchange, deadline);
            if (!deadline.claimAnswer()) {
                throw deadline.cutOff();
            }
            exchange.setStreams(new ByteArrayInputStream(body), null);
            if (guard.admit(exchange)) {
                handler.get().handle(exchange);
            }
        } finally {
            addresses.release(address);
        }
    }

    /** The whole body (fixed length or chunked), or a refusal (413) for one longer than the admin API takes. */
    private static byte[] readBody(HttpExchange exchange, RequestDeadline deadline) throws IOException {
        String declared = exchange.getRequestHeaders().getFirst("Content-Length");
        if (declared != null && Long.parseLong(declared.trim()) > AdminServer.REQUEST_BODY_BYTES_MAX) {
            // Parsed already by the JDK's server, which answers 400 to a malformed length before we are called.
            throw refuse(exchange, deadline, 413, tooLong(declared + " bytes"));
        }
        byte[] body;
        try {
            InputStream in = exchange.getRequestBody();
            body = in.readNBytes(AdminServer.REQUEST_BODY_BYTES_MAX + 1);
        } catch (IOException e) {
            throw deadline.expired() ? deadline.cutOff() : e;
        }
        if (body.length > AdminServer.REQUEST_BODY_BYTES_MAX) {
            String length = "more than " + AdminServer.REQUEST_BODY_BYTES_MAX + " bytes";
            throw refuse(exchange, deadline, 413, tooLong(length));
        }
        return body;
    }

    private static String tooLong(String length) {
        return "a request body is at most " + AdminServer.REQUEST_BODY_BYTES_MAX + " bytes (a knob value or a drain"
                + " request); this one is " + length;
    }

    /**
     * Answers {@code status} with {@code Connection: close}, unless the deadline answered first, and returns the
     * exception the caller throws so that the connection closes without reading the rest of the body. The answer is
     * flushed, never closed: closing it would read that rest first.
     */
    private static IOException refuse(HttpExchange exchange, RequestDeadline deadline, int status, String message)
            throws IOException {
        if (!deadline.claimAnswer()) {
            return deadline.cutOff();
        }
        if (!exchange.getRequestMethod().equals("HEAD")) {
            byte[] bytes = (AdminServer.error(message) + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.getResponseHeaders().set("Connection", "close");
            if (status == 429) {
                exchange.getResponseHeaders().set("Retry-After", "1");
            }
            exchange.sendResponseHeaders(status, bytes.length);
            OutputStream out = exchange.getResponseBody();
            out.write(bytes);
            out.flush();
        }
        return new IOException("admin request refused (" + status + "): " + message);
    }
}

package io.blockcache.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The CLI's side of the admin API ({@code stats}, {@code get}, {@code set}, {@code drain}): sends one request to a
 * running {@code blockcache serve} and turns "nobody is listening" into a message that says what to do.
 *
 * <p>Thread rule: one command's thread.
 */
final class AdminClient {
    /** Default address of the admin API, as {@code serve} binds it. */
    static final String ADDRESS_DEFAULT = "127.0.0.1:10810";
    /** How long to wait for a connection or an answer: the server answers in milliseconds when healthy. */
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** An answer: HTTP status and body. */
    record Response(int status, String body) {
    }

    /** The server could not be reached; the message says where and what to try. */
    static final class Unreachable extends Exception {
        Unreachable(String message) {
            super(message);
        }
    }

    private final String hostPort;
    /** The admin token's file ({@link AdminTokenFile}), read when a request is sent; null: send no token. */
    private final java.nio.file.Path tokenFile;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** @param hostPort where the admin API listens, {@code HOST:PORT} */
    AdminClient(String hostPort) {
        this(hostPort, null);
    }

    /**
     * @param hostPort where the admin API listens, {@code HOST:PORT}
     * @param tokenFile the file with the server's admin token, or null for none
     */
    AdminClient(String hostPort, java.nio.file.Path tokenFile) {
        this.hostPort = hostPort;
        this.tokenFile = tokenFile;
    }

    /** {@code GET path}. */
    Response get(String path) throws Unreachable {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** {@code PUT path} with {@code body} as UTF-8 text. */
    Response put(String path, String body) throws Unreachable {
        return send(HttpRequest.newBuilder(uri(path)).PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** {@code POST path} with an empty body. */
    Response post(String path) throws Unreachable {
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private URI uri(String path) {
        return URI.create("http://" + hostPort + path);
    }

    private Response send(HttpRequest.Builder request) throws Unreachable {
        if (tokenFile != null) {
            try {
                request.header("Authorization", AdminTokenFile.read(tokenFile).headerValue());
            } catch (IllegalArgumentException bad) {
                throw new Unreachable(bad.getMessage());
            }
        }
        try {
            HttpResponse<String> response = http.send(request.timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (ConnectException e) {
            throw new Unreachable("no blockcache server answers at " + hostPort + " (connection refused). "
                    + "Start one with 'blockcache serve', or point at it with --admin HOST:PORT.");
        } catch (HttpTimeoutException e) {
            throw new Unreachable("the blockcache server at " + hostPort + " did not answer within "
                    + TIMEOUT.toSeconds() + " s.");
        } catch (IOException e) {
            throw new Unreachable("talking to the blockcache server at " + hostPort + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while waiting for " + hostPort);
        }
    }

    /** The {@code error} member of a JSON error answer, or the whole body if it has none. */
    static String errorMessage(Response response) {
        try {
            if (JsonReader.parse(response.body()) instanceof java.util.Map<?, ?> map && map.get("error") != null) {
                return String.valueOf(map.get("error"));
            }
        } catch (IllegalArgumentException notJson) {
            // Fall through: show what the server sent.
        }
        return "HTTP " + response.status() + ": " + response.body().strip();
    }
}

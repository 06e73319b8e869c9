package io.blockcache.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
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

    /** Why no request can be sent (where the server is could not be found), or null. */
    private final String problem;

    /** @param hostPort where the admin API listens, {@code HOST:PORT} */
    AdminClient(String hostPort) {
        this(hostPort, null);
    }

    /** A client whose every request fails with {@code problem}: its options (a config file) could not be read. */
    static AdminClient refusing(String problem) {
        return new AdminClient(null, null, problem);
    }

    /**
     * @param hostPort where the admin API listens, {@code HOST:PORT}
     * @param tokenFile the file with the server's admin token, or null for none
     */
    AdminClient(String hostPort, java.nio.file.Path tokenFile) {
        this(hostPort, tokenFile, null);
    }

    private AdminClient(String hostPort, java.nio.file.Path tokenFile, String problem) {
        this.hostPort = hostPort;
        this.tokenFile = tokenFile;
        this.problem = problem;
    }

    /** {@code GET path}. */
    Response get(String path) throws Unreachable {
        return send("GET", path, null);
    }

    /** {@code PUT path} with {@code body} as UTF-8 text. */
    Response put(String path, String body) throws Unreachable {
        return send("PUT", path, body);
    }

    /** {@code POST path} with an empty body. */
    Response post(String path) throws Unreachable {
        return send("POST", path, "");
    }

    /** {@code DELETE path}. */
    Response delete(String path) throws Unreachable {
        return send("DELETE", path, null);
    }

    /**
     * One request on {@link HttpURLConnection}: a command sends one request and ends, and the JDK's
     * {@code java.net.http.HttpClient} (a selector thread, an executor, its own TLS and HTTP/2 set-up) cost about a
     * fifth of a CLI call's CPU where this costs almost nothing (docs/BENCHMARKS.md "CLI start-up").
     */
    private Response send(String method, String path, String body) throws Unreachable {
        if (problem != null) {
            throw new Unreachable(problem);
        }
        HttpURLConnection connection;
        try {
            connection = (HttpURLConnection) URI.create("http://" + hostPort + path).toURL().openConnection();
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreachable("cannot reach the blockcache server at " + hostPort + ": " + e.getMessage());
        }
        try {
            connection.setRequestMethod(method);
            connection.setConnectTimeout((int) TIMEOUT.toMillis());
            connection.setReadTimeout((int) TIMEOUT.toMillis());
            connection.setUseCaches(false);
            if (tokenFile != null) {
                try {
                    connection.setRequestProperty("Authorization", AdminTokenFile.read(tokenFile).headerValue());
                } catch (IllegalArgumentException bad) {
                    throw new Unreachable(bad.getMessage());
                }
            }
            if (body != null) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                // Not in streaming mode: a refusal (401) would then throw before its answer could be read.
                connection.setDoOutput(true);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(bytes);
                }
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            String answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Response(status, answer);
        } catch (ConnectException e) {
            throw new Unreachable("no blockcache server answers at " + hostPort + " (connection refused). "
                    + "Start one with 'blockcache serve', or point at it with --admin HOST:PORT.");
        } catch (SocketTimeoutException e) {
            throw new Unreachable("the blockcache server at " + hostPort + " did not answer within "
                    + TIMEOUT.toSeconds() + " s.");
        } catch (IOException e) {
            throw new Unreachable("talking to the blockcache server at " + hostPort + " failed: " + e);
        } finally {
            connection.disconnect();
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

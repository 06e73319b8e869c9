package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin API bounds every client (2026-12-07: four connections sending a PUT with {@code Content-Length: 100}
 * and one byte of body froze it for as long as they stayed open). Real sockets on 127.0.0.1; each slow client is
 * cut off by a short request read time so the tests take seconds; a good client's {@code GET /api/stats} is timed
 * while the slow ones hold their connections.
 */
class AdminBoundsTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    /** Short, so a test sees the cut-off; the default is 10 s. */
    private static final Duration READ_TIME = Duration.ofMillis(1500);
    private static final AdminLimits LIMITS = new AdminLimits(READ_TIME, Duration.ofSeconds(30), 256, 16);
    /** More than the four worker threads the admin server had before it bounded its clients. */
    private static final int SLOW_CLIENTS = 6;
    private static final int IDLE_CLIENTS = 200;
    /** The good client's answer must come within this, whatever the slow ones do. */
    private static final long GOOD_ANSWER_MS_MAX = 1000;
    /** Every wait in these tests gives up after this. */
    private static final long WAIT_MS_MAX = 15_000;
    /** How often a wait looks again. */
    private static final long CHECK_PERIOD_NS = 2_000_000L;

    private final List<Socket> sockets = new ArrayList<>();
    private RunningCacheSet cache;
    private boolean token;

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (cache != null) {
            cache.close();
        }
    }

    @ParameterizedTest(name = "token {0}")
    @ValueSource(booleans = {false, true})
    void slowHeadersDelayNoOneAndAreCutOff(boolean withToken) throws Exception {
        // Proves clients that send half a request line and wait neither delay a good client's GET /api/stats (under
        // 1 s each) nor stay forever: each sees its connection closed once the read time has passed, counted.
        start(withToken, LIMITS);
        List<Long> sentNs = new ArrayList<>();
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            sentNs.add(System.nanoTime());
            send(connect(), "GET /api/sta");
        }
        awaitCondition(() -> cache.endpoint.requestsInProgress() == SLOW_CLIENTS, "the slow clients are being read");
        assertGoodClientAnswersFast();

        for (int i = 0; i < SLOW_CLIENTS; i++) {
            String seen = readUntilClosed(sockets.get(i));
            long afterMs = Duration.ofNanos(System.nanoTime() - sentNs.get(i)).toMillis();
            assertThat(seen).as("a request cut off before its headers gets no answer").isEmpty();
            assertThat(afterMs).as("cut off after the read time, not before").isGreaterThanOrEqualTo(
                    READ_TIME.toMillis());
        }
        assertThat(stats()).contains("\"refusedAddressMax\":0,\"refusedRequestsMax\":0,\"requestTimeouts\":"
                + SLOW_CLIENTS + "}");
    }

    @ParameterizedTest(name = "token {0}")
    @ValueSource(booleans = {false, true})
    void slowBodiesDelayNoOneAndGet408(boolean withToken) throws Exception {
        // Proves the finding's attack (PUT, Content-Length: 100, one byte of body, no token) no longer blocks a good
        // client's GET /api/stats, and that each slow client gets 408 and a closed connection after the read time.
        start(withToken, LIMITS);
        List<Long> sentNs = new ArrayList<>();
        for (int i = 0; i < SLOW_CLIENTS; i++) {
            sentNs.add(System.nanoTime());
            send(connect(), "PUT /api/knobs/volume.default.mode HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nw");
        }
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        awaitCondition(() -> cache.endpoint.requestsInProgress(loopback) == SLOW_CLIENTS,
                "the slow bodies are being read");
        assertGoodClientAnswersFast();

        for (int i = 0; i < SLOW_CLIENTS; i++) {
            String seen = readUntilClosed(sockets.get(i));
            long afterMs = Duration.ofNanos(System.nanoTime() - sentNs.get(i)).toMillis();
            assertThat(seen).startsWith("HTTP/1.1 408 ").contains("Connection: close")
                    .contains("{\"error\":\"the request took longer than 1500 ms to arrive");
            assertThat(afterMs).isGreaterThanOrEqualTo(READ_TIME.toMillis());
        }
        assertThat(stats()).contains("\"requestTimeouts\":" + SLOW_CLIENTS + "}");
        assertThat(metrics()).contains("blockcache_admin_request_timeouts_total " + SLOW_CLIENTS + ".0");
        assertThat(get("/api/knobs/volume.default.mode").body()).as("no slow PUT changed the knob")
                .contains("writeback");
    }

    @ParameterizedTest(name = "token {0}")
    @ValueSource(booleans = {false, true})
    void idleConnectionsHoldNothing(boolean withToken) throws Exception {
        // Proves 200 connections that send nothing hold no request slot (no thread) and a good client's
        // GET /api/stats still answers under 1 s while they stay open.
        start(withToken, LIMITS);
        for (int i = 0; i < IDLE_CLIENTS; i++) {
            connect();
        }
        assertThat(cache.endpoint.requestsInProgress()).isZero();
        assertGoodClientAnswersFast();
        for (Socket idle : sockets) {
            assertThat(idle.isClosed()).isFalse();
        }
    }

    @Test
    void anAddressBeyondItsLimitGets429() throws Exception {
        // Proves the per-address cap: with 3 requests from 127.0.0.1 in progress a fourth is answered 429 at once
        // (counted), and once the slow ones are cut off the address is served again.
        start(false, new AdminLimits(READ_TIME, Duration.ofSeconds(30), 256, 3));
        for (int i = 0; i < 3; i++) {
            send(connect(), "PUT /api/knobs/volume.default.mode HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nw");
        }
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        awaitCondition(() -> cache.endpoint.requestsInProgress(loopback) == 3, "the slow bodies are being read");
        Answer refused = get("/api/stats");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text()).containsIgnoringCase("Retry-After: 1")
                .contains("3 admin requests from 127.0.0.1 are in progress");
        assertThat(refused.latencyMs()).isLessThan(GOOD_ANSWER_MS_MAX);
        for (int i = 0; i < 3; i++) {
            assertThat(readUntilClosed(sockets.get(i))).startsWith("HTTP/1.1 408 ");
        }
        awaitCondition(() -> cache.endpoint.requestsInProgress(loopback) == 0, "the cut-off requests have ended");
        assertThat(stats()).contains("\"refusedAddressMax\":1,\"refusedRequestsMax\":0,\"requestTimeouts\":3}");
    }

    @Test
    void requestsBeyondTheTotalAreClosedAtOnce() throws Exception {
        // Proves the total cap: with 4 requests in progress (the cap) a fifth finds its connection closed at once
        // (counted), and once the slow ones are cut off requests are served again.
        start(false, new AdminLimits(READ_TIME, Duration.ofSeconds(30), 4, 4));
        for (int i = 0; i < 4; i++) {
            send(connect(), "GET /api/sta");
        }
        awaitCondition(() -> cache.endpoint.requestsInProgress() == 4, "the slow clients are being read");
        Answer refused = get("/api/stats");
        assertThat(refused.text()).as("closed without an answer").isEmpty();
        assertThat(refused.latencyMs()).isLessThan(GOOD_ANSWER_MS_MAX);
        for (int i = 0; i < 4; i++) {
            assertThat(readUntilClosed(sockets.get(i))).isEmpty();
        }
        awaitCondition(() -> cache.endpoint.requestsInProgress() == 0, "the cut-off requests have ended");
        assertThat(stats()).contains("\"refusedAddressMax\":0,\"refusedRequestsMax\":1,\"requestTimeouts\":4}");
    }

    @Test
    void aBodyLongerThanTheLimitIsRefusedUnread() throws Exception {
        // Proves a body declared longer than the admin API takes is answered 413 at once, without waiting for it.
        start(false, LIMITS);
        Socket socket = connect();
        send(socket, "PUT /api/knobs/volume.default.mode HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n");
        long startNs = System.nanoTime();
        String seen = readUntilClosed(socket);
        assertThat(seen).startsWith("HTTP/1.1 413 ").contains("a request body is at most 4096 bytes");
        assertThat(Duration.ofNanos(System.nanoTime() - startNs).toMillis()).isLessThan(GOOD_ANSWER_MS_MAX);
    }

    @Test
    void anAnswerThatTakesTooLongIsCutOff() throws Exception {
        // Proves the answer deadline: a handler still busy after the answer time is interrupted and its connection
        // closed (counted), and the endpoint serves the next request.
        AdminLimits limits = new AdminLimits(READ_TIME, Duration.ofMillis(1000), 256, 16);
        CountDownLatch never = new CountDownLatch(1);
        try (AdminEndpoint endpoint = AdminEndpoint.bind(new InetSocketAddress("127.0.0.1", 0), exchange -> {
            if (exchange.getRequestURI().getPath().equals("/stuck")) {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    throw new IOException("interrupted by the answer deadline", e);
                }
            }
            AdminServer.sendJson(exchange, 200, "{}");
            exchange.close();
        }, AdminGuard.OPEN, limits)) {
            Socket stuck = new Socket();
            sockets.add(stuck);
            stuck.connect(endpoint.address(), (int) WAIT_MS_MAX);
            long sentNs = System.nanoTime();
            send(stuck, "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(readUntilClosed(stuck)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - sentNs).toMillis()).isGreaterThanOrEqualTo(1000);
            assertThat(endpoint.counters().requestTimeouts()).isEqualTo(1);
            Socket next = new Socket();
            sockets.add(next);
            next.connect(endpoint.address(), (int) WAIT_MS_MAX);
            send(next, "GET /fine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(readUntilClosed(next)).startsWith("HTTP/1.1 200 ");
        }
    }

    @Test
    void limitsAreValidatedOnce() {
        // Proves the limits refuse values that cannot work, naming the value.
        assertThatThrownBy(() -> new AdminLimits(Duration.ZERO, Duration.ofSeconds(1), 1, 1))
                .hasMessage("the admin request read time must be positive: PT0S");
        assertThatThrownBy(() -> new AdminLimits(Duration.ofSeconds(1), Duration.ofSeconds(-1), 1, 1))
                .hasMessage("the admin answer time must be positive: PT-1S");
        assertThatThrownBy(() -> new AdminLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 0, 1))
                .hasMessage("admin requests at once must be 1 to 4096: 0");
        assertThatThrownBy(() -> new AdminLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 4, 5))
                .hasMessage("admin requests at once per address must be 1 to the total (4): 5");
        assertThat(AdminLimits.DEFAULTS.requestReadTime()).isEqualTo(Duration.ofSeconds(10));
    }

    private void start(boolean withToken, AdminLimits limits) throws Exception {
        token = withToken;
        cache = new RunningCacheSet(withToken ? new AdminGuard(AdminToken.of(TOKEN, "test"), line -> { })
                : AdminGuard.OPEN, limits);
    }

    /** Five GET /api/stats in a row, each answered 200 within {@link #GOOD_ANSWER_MS_MAX}. */
    private void assertGoodClientAnswersFast() throws IOException {
        for (int i = 0; i < 5; i++) {
            Answer answer = get("/api/stats");
            assertThat(answer.status()).as(answer.text()).isEqualTo(200);
            assertThat(answer.latencyMs()).as("the good client's latency").isLessThan(GOOD_ANSWER_MS_MAX);
        }
    }

    private String stats() throws IOException {
        return get("/api/stats").body();
    }

    private String metrics() throws IOException {
        return get("/metrics").body();
    }

    /** A well-behaved GET (with the token when one is set) on a connection of its own, timed. */
    private Answer get(String path) throws IOException {
        long startNs = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(cache.endpoint.address(), (int) WAIT_MS_MAX);
            send(socket, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + (token ? "Authorization: Bearer " + TOKEN + "\r\n" : "") + "\r\n");
            String text = readUntilClosed(socket);
            return new Answer(text, Duration.ofNanos(System.nanoTime() - startNs).toMillis());
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        sockets.add(socket);
        InetSocketAddress address = cache.endpoint.address();
        socket.connect(address, (int) WAIT_MS_MAX);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Everything the server sends until it closes the connection (a reset counts as closed); bounded in time. */
    private static String readUntilClosed(Socket socket) throws IOException {
        socket.setSoTimeout((int) WAIT_MS_MAX);
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                seen.write(buffer, 0, n);
            }
        } catch (SocketException reset) {
            // Closed with a reset: what came before it is the answer.
        }
        return seen.toString(StandardCharsets.UTF_8);
    }

    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + Duration.ofMillis(WAIT_MS_MAX).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadlineNs).as("waited too long until " + what).isNegative();
            LockSupport.parkNanos(CHECK_PERIOD_NS);
        }
    }

    /** A raw HTTP answer (empty when the connection was closed without one) and how long it took. */
    private record Answer(String text, long latencyMs) {
        int status() {
            return text.isEmpty() ? 0 : Integer.parseInt(text.substring(9, 12));
        }

        String body() {
            return text.substring(text.indexOf("\r\n\r\n") + 4);
        }
    }
}

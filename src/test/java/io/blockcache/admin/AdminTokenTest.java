package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin API's bearer token: with a token every request but the dashboard page needs
 * {@code Authorization: Bearer TOKEN}; a missing or wrong one gets 401 with a one-line JSON error, changes nothing,
 * and is counted in {@code /api/stats} and {@code /metrics}.
 */
class AdminTokenTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Queue<String> log = new ConcurrentLinkedQueue<>();
    private RunningCacheSet cache;

    @AfterEach
    void stop() {
        if (cache != null) {
            cache.close();
        }
    }

    private HttpResponse<String> send(String method, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + cache.adminHostPort() + path))
                .timeout(Duration.ofSeconds(10)).method(method, method.equals("PUT")
                        ? HttpRequest.BodyPublishers.ofString("writethrough") : HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void requestsWithoutTheTokenGet401AndChangeNothing() throws Exception {
        // Proves every API path refuses a missing or wrong token (401, WWW-Authenticate, one JSON line), that a
        // refused PUT and drain change nothing, that the dashboard page needs no token, that the right token (any
        // case of "Bearer") is let through, and that refusals are counted and logged (the first one only).
        cache = new RunningCacheSet(new AdminGuard(AdminToken.of(TOKEN, "test"), log::add));
        assertThat(cache.write(0, 8192)).isEqualTo(IoResult.OK);
        String right = "Bearer " + TOKEN;
        List<String> wrongs = java.util.Arrays.asList(null, "Bearer " + TOKEN.replace('f', 'e'), TOKEN,
                "Basic " + TOKEN, "Bearer " + TOKEN + "0", "Bearer ");
        int refused = 0;
        for (String wrong : wrongs) {
            for (String[] call : new String[][] {{"GET", "/api/stats"}, {"GET", "/metrics"}, {"GET", "/api/knobs"},
                    {"PUT", "/api/knobs/volume.default.mode"}, {"POST", "/api/volumes/default/drain"},
                    {"POST", "/api/reload"}, {"GET", "/nothing-here"}}) {
                HttpResponse<String> answer = send(call[0], call[1], wrong);
                refused++;
                assertThat(answer.statusCode()).as(call[0] + " " + call[1] + " with " + wrong).isEqualTo(401);
                assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"blockcache\"");
                assertThat(answer.body()).startsWith("{\"error\":\"this admin API needs a token: send 'Authorization:"
                        + " Bearer TOKEN'").endsWith("}\n").containsOnlyOnce("\n");
            }
        }
        assertThat(send("GET", "/", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/", null).body()).contains("<title>blockcache</title>").doesNotContain(TOKEN);

        assertThat(send("GET", "/api/knobs/volume.default.mode", right).body()).contains("writeback");
        HttpResponse<String> drain = send("GET", "/api/volumes/default/drain", "bearer " + TOKEN);
        assertThat(drain.statusCode()).isEqualTo(200);
        assertThat(drain.body()).contains("\"id\":0,\"state\":\"none\"");
        assertThat(cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes())))
                .as("no refused drain ran").isEqualTo(8192L);

        HttpResponse<String> stats = send("GET", "/api/stats", right);
        assertThat(stats.statusCode()).isEqualTo(200);
        assertThat(stats.body()).contains("\"admin\":{\"tokenRequired\":true,\"unauthorizedRequests\":" + refused
                + ",\"refusedAddressMax\":0,\"refusedRequestsMax\":0,\"requestTimeouts\":0}");
        assertThat(send("GET", "/metrics", right).body())
                .contains("blockcache_admin_unauthorized_requests_total " + refused + ".0");
        assertThat(log).hasSize(1);
        assertThat(log.peek()).isEqualTo("admin: 127.0.0.1: GET /api/stats refused (401): no bearer token (1 refused"
                + " since start)");
        assertThat(String.join("", log)).doesNotContain(TOKEN);
    }

    @Test
    void theTokenGuardsTheApiWhileTheCacheIsStillBeingRecovered() throws Exception {
        // Proves the guard sits on the endpoint, not on one handler: during recovery (RecoveryAdmin answers) the
        // progress needs the token too, and the dashboard page does not.
        try (io.blockcache.loop.RealLoop loop = new io.blockcache.loop.RealLoop("admin-token-recovery-loop");
             AdminEndpoint endpoint = AdminEndpoint.bind(new java.net.InetSocketAddress("127.0.0.1", 0),
                     new RecoveryAdmin(loop, new io.blockcache.engine.RecoveryProgress()),
                     new AdminGuard(AdminToken.of(TOKEN, "test"), log::add))) {
            String base = "http://127.0.0.1:" + endpoint.address().getPort();
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "/api/stats")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
            HttpResponse<String> allowed = http.send(HttpRequest.newBuilder(URI.create(base + "/api/stats"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.body()).startsWith("{\"recovery\":{\"phase\":");
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            assertThat(endpoint.guard().refusals()).isEqualTo(1);
        }
    }

    @Test
    void withoutATokenEverythingAnswersAndNothingIsCounted() throws Exception {
        // Proves the open case is unchanged and says so in the stats.
        cache = new RunningCacheSet();
        assertThat(send("GET", "/api/stats", null).body())
                .contains("\"admin\":{\"tokenRequired\":false,\"unauthorizedRequests\":0,\"refusedAddressMax\":0,"
                        + "\"refusedRequestsMax\":0,\"requestTimeouts\":0}");
        assertThat(send("GET", "/api/stats", "Bearer whatever").statusCode()).isEqualTo(200);
    }

    @Test
    void badTokensAreOneLineErrors() {
        // Proves the token's own rules: not empty, 16..1024 characters, only what an HTTP bearer token may carry;
        // and that toString never shows it.
        assertThatThrownBy(() -> AdminToken.of("", "f")).hasMessage("f holds no token (it is empty); write one,"
                + " e.g. openssl rand -hex 32 > FILE");
        assertThatThrownBy(() -> AdminToken.of("short", "f")).hasMessageContaining("the token has 5 characters; it"
                + " must have 16 to 1024");
        assertThatThrownBy(() -> AdminToken.of("x".repeat(1025), "f")).hasMessageContaining("1025 characters");
        assertThatThrownBy(() -> AdminToken.of("0123456789abcdef 0123", "f")).hasMessageContaining("RFC 6750");
        assertThatThrownBy(() -> AdminToken.of("0123456789abcdef\u00e9", "f")).hasMessageContaining("RFC 6750");
        AdminToken token = AdminToken.of("abcDEF0123456789-._~+/==", "f");
        assertThat(token.accepts("Bearer abcDEF0123456789-._~+/==")).isTrue();
        assertThat(token.accepts("Bearer abcdef0123456789-._~+/==")).isFalse();
        assertThat(token.accepts(null)).isFalse();
        assertThat(token.toString()).doesNotContain("abcDEF");
    }
}

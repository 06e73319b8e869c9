package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-export allow-lists with real clients: libnbd's {@code nbdinfo} and {@code nbdsh} from
 * 127.0.0.1 against {@code serve} with {@code export.NAME.allow-addresses} (an allowed and a refused range) and,
 * over TLS-PSK, {@code export.NAME.allow-psk-users} (alice allowed, bob refused). A refused client gets an error for
 * that export only, does not see it listed, is counted in {@code /api/stats} and logged; the others are served.
 */
@Timeout(180)
class NbdAccessInteropTest {
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @BeforeEach
    void tools() {
        ExternalTool.require("nbdinfo");
        ExternalTool.require("nbdsh");
    }

    private ExternalTool.Run run(String... command) throws Exception {
        return ExternalTool.run(dir, TOOL_TIMEOUT, List.of(command));
    }

    private static String stats(ServeProcess serve) throws Exception {
        return get(serve, "/api/stats");
    }

    private static String get(ServeProcess serve, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** nbdsh writes 4 KiB at 4096 through {@code uri}, reads it back and prints "ok". */
    private ExternalTool.Run writeAndRead(String uri) throws Exception {
        return run("nbdsh", "-c", "h.set_uri_allow_local_file(True); h.connect_uri('" + uri + "');"
                + " h.pwrite(b'acl!' * 1024, 4096); assert h.pread(4096, 4096) == b'acl!' * 1024; print('ok')");
    }

    @Test
    void aClientOutsideAnExportsRangesIsRefusedItAndServedTheOthers() throws Exception {
        // Proves address allow-lists with libnbd from 127.0.0.1: "default" (127.0.0.0/8, ::1/128) is listed and
        // written through; "closed" (10.0.0.0/8, 2001:db8::/32) is neither listed nor opened, and the refusal is
        // counted, logged and wrote nothing.
        String config = "backing=default=" + dir.resolve("data/backing.img") + ",closed="
                + dir.resolve("data/closed.img")
                + "\nexport.default.allow-addresses=127.0.0.0/8,::1/128\n"
                + "export.closed.allow-addresses=10.0.0.0/8, 2001:db8::/32\n";
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "ranges", config)) {
            String base = "nbd://127.0.0.1:" + serve.nbdPort();
            ExternalTool.Run list = run("nbdinfo", "--list", base);
            assertThat(list.exitCode()).as(list.describe()).isZero();
            assertThat(list.out()).contains("export=\"default\"").doesNotContain("closed");
            ExternalTool.Run refused = run("nbdinfo", base + "/closed");
            assertThat(refused.exitCode()).as(refused.describe()).isNotZero();
            // libnbd 1.14 words NBD_REP_ERR_POLICY as "Operation not supported" (the server's text: debug log only).
            assertThat(refused.err()).contains("server replied with error to opt_go request");
            ExternalTool.Run served = writeAndRead(base + "/default");
            assertThat(served.exitCode()).as(served.describe()).isZero();
            assertThat(served.out()).contains("ok");

            String json = stats(serve);
            assertThat(json).contains("\"exportRefusalsAddress\":1,\"exportRefusalsPskUser\":0");
            assertThat(json).containsPattern("\"name\":\"closed\",[^}]*\"writeCachedSectors\":0,");
            assertThat(get(serve, "/metrics")).contains("blockcache_nbd_export_refusals_total{reason=\"address\"} 1.0",
                    "blockcache_nbd_export_refusals_total{reason=\"psk_user\"} 0.0");
            assertThat(serve.log()).containsOnlyOnce("export 'closed' refused: address 127.0.0.1 is not in its"
                    + " allow-addresses; answered NBD_REP_ERR_POLICY");
        }
    }

    @Test
    void overTlsPskAliceIsServedAndBobIsRefused() throws Exception {
        // Proves allow-psk-users with GnuTLS clients: both keys are good (the TLS handshake succeeds for both), but
        // only alice may use "default"; bob gets an error from NBD_OPT_GO, is counted and logged by name.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "11".repeat(32) + "\nbob:"
                + "22".repeat(32) + "\n");
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "psk-users", "tls=require\ntls-psk=" + keys
                + "\nexport.default.allow-psk-users=alice\n")) {
            String tail = "@localhost:" + serve.nbdPort() + "/default?tls-psk-file=" + keys;
            ExternalTool.Run alice = writeAndRead("nbds://alice" + tail);
            assertThat(alice.exitCode()).as(alice.describe()).isZero();
            assertThat(alice.out()).contains("ok");
            ExternalTool.Run bob = run("nbdinfo", "nbds://bob" + tail);
            assertThat(bob.exitCode()).as(bob.describe()).isNotZero();
            assertThat(bob.err()).contains("opt_go");
            ExternalTool.Run bobList = run("nbdinfo", "--list", "nbds://bob@localhost:" + serve.nbdPort()
                    + "/?tls-psk-file=" + keys);
            assertThat(bobList.out()).as(bobList.describe()).doesNotContain("export=\"default\"");

            String json = stats(serve);
            assertThat(json).contains("\"tlsHandshakeFailures\":0").contains("\"exportRefusalsPskUser\":1");
            assertThat(serve.log()).contains("export 'default' refused: PSK user 'bob' is not in its"
                    + " allow-psk-users; answered NBD_REP_ERR_POLICY");
            ExternalTool.Run aliceAgain = writeAndRead("nbds://alice" + tail);
            assertThat(aliceAgain.exitCode()).as("alice is still served: " + aliceAgain.describe()).isZero();
        }
    }
}

package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.TestPki;
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
 * NBD over TLS with real clients: libnbd's {@code nbdinfo}/{@code nbdcopy} with {@code nbds://} URIs and QEMU's
 * {@code qemu-img} with {@code tls-creds-x509}/{@code tls-creds-psk}, against {@code serve --tls=require}; and what
 * each wrong credential, a plain client, and a TLS client of a plain server get. Certificates are made in the test
 * (bcpkix), the PSK file is written as psktool writes it.
 */
@Timeout(180)
class NbdTlsInteropTest {
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(30);
    private static final String KEY_HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    @TempDir
    Path dir;

    @BeforeEach
    void tools() {
        ExternalTool.require("nbdinfo");
        ExternalTool.require("nbdcopy");
        ExternalTool.require("qemu-img");
        ExternalTool.require("nbdsh");
    }

    private ExternalTool.Run run(String... command) throws Exception {
        return ExternalTool.run(dir, TOOL_TIMEOUT, List.of(command));
    }

    /** nbdcopy writes 1 MiB of random data to {@code uri} and reads it back: the same bytes. */
    private void roundTrip(String uri, int seed) throws Exception {
        Path data = RandomFiles.write(dir.resolve("random-" + seed + ".bin"), 1 << 20, seed);
        ExternalTool.Run copyIn = run("nbdcopy", data.toString(), uri);
        assertThat(copyIn.exitCode()).as(copyIn.describe()).isZero();
        Path back = dir.resolve("back-" + seed + ".bin");
        ExternalTool.Run copyOut = run("nbdcopy", uri, back.toString());
        assertThat(copyOut.exitCode()).as(copyOut.describe()).isZero();
        assertThat(Files.mismatch(data, back)).as("first differing byte within the written MiB")
                .isGreaterThanOrEqualTo(1L << 20);
    }

    private static String stats(ServeProcess serve) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + serve.adminHostPort()
                + "/api/stats")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void x509RoundTripsWithLibnbdAndQemuAndRefusesPlainAndUnverifiedClients() throws Exception {
        // Proves X.509 with --tls-verify-peer: nbdcopy writes and reads back 1 MiB over nbds://, qemu-img info
        // connects with tls-creds-x509, while a plain nbdinfo and one without a client certificate are refused,
        // each with a line in serve's log and a count in /api/stats.
        TestPki pki = new TestPki("interop CA");
        Path serverDir = pki.writeServerFiles(dir.resolve("server-tls"), pki.server());
        Path clientDir = pki.writeClientFiles(dir.resolve("client-tls"), pki.client());
        Path anonymousDir = pki.writeClientFiles(dir.resolve("anonymous-tls"), null);
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "x509", "tls=require\ntls-certificates="
                + serverDir + "\ntls-verify-peer=true\n")) {
            String uri = "nbds://localhost:" + serve.nbdPort() + "/default?tls-certificates=" + clientDir;
            roundTrip(uri, 21);
            ExternalTool.Run info = run("nbdinfo", uri);
            assertThat(info.exitCode()).as(info.describe()).isZero();
            assertThat(info.out()).contains("with TLS");
            ExternalTool.Run qemu = run("qemu-img", "info", "--object", "tls-creds-x509,id=tls0,dir=" + clientDir
                    + ",endpoint=client", "--image-opts", "driver=nbd,host=localhost,port=" + serve.nbdPort()
                    + ",export=default,tls-creds=tls0");
            assertThat(qemu.exitCode()).as(qemu.describe()).isZero();
            assertThat(qemu.out()).contains("virtual size");

            ExternalTool.Run plain = run("nbdinfo", serve.uri());
            assertThat(plain.exitCode()).as(plain.describe()).isNotZero();
            ExternalTool.Run anonymous = run("nbdinfo", "nbds://localhost:" + serve.nbdPort()
                    + "/default?tls-certificates=" + anonymousDir);
            assertThat(anonymous.exitCode()).as(anonymous.describe()).isNotZero();
            String json = stats(serve);
            assertThat(json).contains("\"tlsHandshakeFailures\":1").contains("\"tlsRequiredRefusals\":1");
            assertThat(serve.log()).contains("before TLS refused (--tls=require)").contains("TLS handshake failed");
        }
    }

    @Test
    void pskRoundTripsWithLibnbdAndQemuAndRefusesAWrongKey() throws Exception {
        // Proves PSK (BouncyCastle on our side, GnuTLS in the clients): nbdcopy round trip, nbdsh write and read,
        // and qemu-img info with the right key; a wrong key fails with a log line naming the identity.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + KEY_HEX + "\n");
        Path qemuDir = Files.createDirectories(dir.resolve("qemu-psk"));
        Files.copy(keys, qemuDir.resolve("keys.psk")); // qemu's tls-creds-psk reads DIR/keys.psk
        Path wrong = Files.writeString(dir.resolve("wrong.psk"), "alice:" + "ff".repeat(32) + "\n");
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "psk", "tls=require\ntls-psk=" + keys
                + "\n")) {
            String uri = "nbds://alice@localhost:" + serve.nbdPort() + "/default?tls-psk-file=" + keys;
            roundTrip(uri, 22);
            // nbdsh reads no local file named in a URI unless allowed (tls-psk-file is one).
            ExternalTool.Run nbdsh = run("nbdsh", "-c", "h.set_uri_allow_local_file(True); h.connect_uri('" + uri
                    + "'); h.pwrite(b'tls!' * 128, 4096); assert h.pread(512, 4096) == b'tls!' * 128; print('ok')");
            assertThat(nbdsh.exitCode()).as(nbdsh.describe()).isZero();
            assertThat(nbdsh.out()).contains("ok");
            ExternalTool.Run qemu = run("qemu-img", "info", "--object", "tls-creds-psk,id=tls0,dir=" + qemuDir
                    + ",username=alice,endpoint=client", "--image-opts", "driver=nbd,host=localhost,port="
                    + serve.nbdPort() + ",export=default,tls-creds=tls0");
            assertThat(qemu.exitCode()).as(qemu.describe()).isZero();

            ExternalTool.Run bad = run("nbdinfo", "nbds://alice@localhost:" + serve.nbdPort()
                    + "/default?tls-psk-file=" + wrong);
            assertThat(bad.exitCode()).as(bad.describe()).isNotZero();
            assertThat(stats(serve)).contains("\"tlsHandshakeFailures\":1");
            assertThat(serve.log()).contains("TLS handshake failed: PSK identity 'alice' (the client's key differs");
        }
    }

    @Test
    void aTlsClientOfAPlainServerIsToldTlsIsOff() throws Exception {
        // Proves --tls=off: libnbd asking for TLS (nbds://) gets NBD_REP_ERR_POLICY and gives up, serve logs it,
        // and a plain client is still served.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + KEY_HEX + "\n");
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "plain")) {
            ExternalTool.Run tls = run("nbdinfo", "nbds://alice@localhost:" + serve.nbdPort()
                    + "/default?tls-psk-file=" + keys);
            assertThat(tls.exitCode()).as(tls.describe()).isNotZero();
            ExternalTool.Run plain = run("nbdinfo", serve.uri());
            assertThat(plain.exitCode()).as(plain.describe()).isZero();
            assertThat(stats(serve)).contains("\"tlsOffRefusals\":1");
            assertThat(serve.log()).contains("asked for TLS, which this server does not offer (--tls=off)");
        }
    }
}

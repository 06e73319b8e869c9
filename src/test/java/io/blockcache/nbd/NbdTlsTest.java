package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** NBD over TLS (NBD_OPT_STARTTLS) with the server's real connections: X.509, PSK, and every way to get it wrong. */
@Timeout(120)
class NbdTlsTest {
    private static final byte[] ALICE_KEY = HexFormat.of().parseHex(
            "8f2ad4c61b0e7d5a3c9e4f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e");

    @TempDir
    Path dir;

    private NbdFixture x509Server(TlsMode mode, boolean verifyClients, TestPki pki) throws Exception {
        Path files = pki.writeServerFiles(dir.resolve("server"), pki.server());
        return new NbdFixture(NbdFixture.VOLUME_BYTES, NbdLimits.DEFAULTS, new PayloadBuffers(),
                new TlsSettings(mode, TlsCredentials.x509(files, verifyClients)));
    }

    private static byte[] pattern(int bytes, int seed) {
        byte[] data = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            data[i] = (byte) (i * 31 + seed);
        }
        return data;
    }

    @Test
    void requireServesTlsClientsAndRefusesEverythingElseBeforeTls() throws Exception {
        // Proves FORCEDTLS: before TLS, LIST/GO/STRUCTURED_REPLY get ERR_TLS_REQD, ABORT gets ACK, EXPORT_NAME closes
        // the connection (and a WRITE sent after it is never applied); STARTTLS with data is INVALID; after STARTTLS
        // the same client is served, a second STARTTLS is INVALID, and data written over TLS reads back.
        TestPki pki = new TestPki("test CA");
        try (NbdFixture fixture = x509Server(TlsMode.REQUIRE, false, pki)) {
            try (NbdTestClient plain = fixture.client().hello()) {
                assertThat(plain.option(OPT_LIST, new byte[0]).get(0).type()).isEqualTo(REP_ERR_TLS_REQD);
                assertThat(plain.option(OPT_GO, NbdTestClient.infoData("default")).get(0).type())
                        .isEqualTo(REP_ERR_TLS_REQD);
                assertThat(plain.option(OPT_STRUCTURED_REPLY, new byte[0]).get(0).type()).isEqualTo(REP_ERR_TLS_REQD);
                assertThat(plain.option(OPT_STARTTLS, new byte[] {1}).get(0).type()).isEqualTo(REP_ERR_INVALID);
                assertThat(plain.option(OPT_ABORT, new byte[0]).get(0).type()).isEqualTo(REP_ACK);
            }
            try (NbdTestClient plain = fixture.client().hello()) {
                plain.sendOption(OPT_EXPORT_NAME, "default".getBytes(StandardCharsets.UTF_8));
                try {
                    plain.sendWithHandle(1, 0, CMD_WRITE, 0, 4096, pattern(4096, 1));
                } catch (java.net.SocketException closedAlready) {
                    // the server closed before the WRITE went out: it cannot land either way (checked below)
                }
                assertThat(plain.serverClosed()).isTrue();
            }
            try (NbdTestClient tls = fixture.client().hello()) {
                assertThat(tls.startTls(TlsTestClients.x509(pki.ca.certificate(), null)).type()).isEqualTo(REP_ACK);
                assertThat(tls.option(OPT_STARTTLS, new byte[0]).get(0).type()).isEqualTo(REP_ERR_INVALID);
                List<NbdTestClient.OptionReply> list = tls.option(OPT_LIST, new byte[0]);
                assertThat(list.get(list.size() - 1).type()).isEqualTo(REP_ACK);
                tls.go("default", true);
                assertThat(tls.read(0, 4096)).as("the plain client's WRITE never landed").isEqualTo(new byte[4096]);
                byte[] data = pattern(64 << 10, 7);
                assertThat(tls.write(8192, data, CMD_FLAG_FUA)).isZero();
                assertThat(tls.read(8192, data.length)).isEqualTo(data);
                tls.disconnect();
            }
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.tlsHandshakes()).isEqualTo(1);
            assertThat(stats.tlsHandshakeFailures()).isZero();
            assertThat(stats.tlsRequiredRefusals()).as("once per connection").isEqualTo(2);
            assertThat(String.join("\n", fixture.log))
                    .contains("127.0.0.1: option 3 before TLS refused (--tls=require) with NBD_REP_ERR_TLS_REQD")
                    .contains("127.0.0.1: option 1 before TLS refused (--tls=require); connection closed");
        }
    }

    @Test
    void clientCertificatesAreVerifiedAndBadOnesEndOnlyTheirConnection() throws Exception {
        // Proves --tls-verify-peer: no certificate, one from another CA and an expired one each fail the handshake
        // (counted, one log line each), while a client already served goes on and a good certificate is served.
        TestPki pki = new TestPki("test CA");
        TestPki rogue = new TestPki("rogue CA");
        try (NbdFixture fixture = x509Server(TlsMode.REQUIRE, true, pki);
             NbdTestClient good = fixture.client().hello()) {
            good.startTls(TlsTestClients.x509(pki.ca.certificate(), pki.client()));
            good.go("default", true);
            byte[] data = pattern(4096, 3);
            assertThat(good.write(0, data, 0)).isZero();
            Instant now = Instant.now();
            List<TestPki.Issued> bad = Arrays.asList(null, rogue.client(),
                    pki.client(now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1))));
            for (TestPki.Issued certificate : bad) {
                try (NbdTestClient client = fixture.client().hello()) {
                    assertThatThrownBy(() -> {
                        // TLS 1.3 clients learn of a refused certificate only on their first read.
                        client.startTls(TlsTestClients.x509(pki.ca.certificate(), certificate));
                        client.option(OPT_LIST, new byte[0]);
                    }).isInstanceOf(java.io.IOException.class);
                    client.awaitServerClose();
                }
            }
            assertThat(good.read(0, 4096)).isEqualTo(data);
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.tlsHandshakes()).isEqualTo(1);
            assertThat(stats.tlsHandshakeFailures()).isEqualTo(3);
            assertThat(fixture.log.stream().filter(line -> line.contains("TLS handshake failed")).count())
                    .as(String.join("\n", fixture.log)).isEqualTo(3);
            assertThat(fixture.log).allMatch(line -> !line.contains("\n"));
        }
    }

    @Test
    void pskServesTheRightKeyAndRefusesUnknownIdentitiesAndWrongKeys() throws Exception {
        // Proves PSK through BouncyCastle: the right identity and key is served; an unknown identity and a wrong
        // key each fail the handshake with a log line that says which.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + HexFormat.of().formatHex(ALICE_KEY) + "\n");
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, NbdLimits.DEFAULTS, new PayloadBuffers(),
                new TlsSettings(TlsMode.REQUIRE, TlsCredentials.psk(keys)))) {
            try (NbdTestClient alice = fixture.client().hello()) {
                alice.startTls(TlsTestClients.psk("alice", ALICE_KEY));
                alice.go("second", true);
                byte[] data = pattern(12_345, 5);
                assertThat(alice.write(777, data, 0)).isZero();
                assertThat(alice.read(777, data.length)).isEqualTo(data);
                alice.disconnect();
                // The spec: on DISC the server MUST close the TLS session (close_notify), then the TCP connection;
                // BouncyCastle's client fails a session cut without one (TlsNoCloseNotifyException).
                assertThat(alice.in.read()).isEqualTo(-1);
            }
            byte[] wrongKey = ALICE_KEY.clone();
            wrongKey[0] ^= 1;
            for (NbdTestClient.TlsUpgrade upgrade : List.of(TlsTestClients.psk("bob", ALICE_KEY),
                    TlsTestClients.psk("alice", wrongKey))) {
                try (NbdTestClient client = fixture.client().hello()) {
                    assertThatThrownBy(() -> client.startTls(upgrade)).isInstanceOf(java.io.IOException.class);
                    client.awaitServerClose();
                }
            }
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.tlsHandshakes()).isEqualTo(1);
            assertThat(stats.tlsHandshakeFailures()).isEqualTo(2);
            assertThat(String.join("\n", fixture.log)).contains("unknown PSK identity 'bob'")
                    .contains("PSK identity 'alice' (the client's key differs from ours?)");
        }
    }

    @Test
    void aClientThatIsNoTlsClientFailsTheHandshakeOnly() throws Exception {
        // Proves bytes that are not a TLS ClientHello after the STARTTLS ACK end that connection with a counted
        // failure, and the server keeps serving others.
        TestPki pki = new TestPki("test CA");
        try (NbdFixture fixture = x509Server(TlsMode.REQUIRE, false, pki)) {
            try (NbdTestClient client = fixture.client().hello()) {
                client.startTls(TlsTestClients.garbage("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                client.awaitServerClose();
            }
            try (NbdTestClient tls = fixture.client().hello()) {
                tls.startTls(TlsTestClients.x509(pki.ca.certificate(), null));
                tls.go("default", false);
                assertThat(tls.read(0, 512)).hasSize(512);
            }
            assertThat(fixture.server.stats().tlsHandshakeFailures()).isEqualTo(1);
            assertThat(fixture.server.stats().protocolErrors()).isZero();
        }
    }

    @Test
    void bytesSentBeforeTheStartTlsReplyEndTheConnection() throws Exception {
        // Proves a client that sends its TLS bytes with NBD_OPT_STARTTLS, before the reply (the spec: it must
        // wait), is cut off as a protocol error instead of having those bytes lost or misread.
        TestPki pki = new TestPki("test CA");
        try (NbdFixture fixture = x509Server(TlsMode.REQUIRE, false, pki);
             NbdTestClient client = fixture.client().hello()) {
            byte[] optionAndMore = java.nio.ByteBuffer.allocate(16 + 5).putLong(OPTION_MAGIC).putInt(OPT_STARTTLS)
                    .putInt(0).put(new byte[] {0x16, 3, 1, 0, 0}).array(); // one write: the start of a ClientHello
            client.out.write(optionAndMore);
            client.out.flush();
            client.awaitServerClose();
            assertThat(fixture.server.stats().protocolErrors()).isEqualTo(1);
            assertThat(String.join("\n", fixture.log)).contains("sent 5 bytes after NBD_OPT_STARTTLS before its reply");
        }
    }

    @Test
    void onLetsClientsChooseAndForgetsWhatWasNegotiatedInPlainText() throws Exception {
        // Proves --tls=on: a plain client is served; a client that negotiated structured replies in plain text and
        // then started TLS is served without them (nothing from before the upgrade is trusted), so GO's flags lack
        // DF, which needs structured replies.
        TestPki pki = new TestPki("test CA");
        try (NbdFixture fixture = x509Server(TlsMode.ON, false, pki)) {
            try (NbdTestClient plain = fixture.client().go("default", true)) {
                assertThat(plain.transmissionFlags & FLAG_SEND_DF).isNotZero();
                assertThat(plain.read(0, 512)).hasSize(512);
            }
            try (NbdTestClient upgraded = fixture.client().hello()) {
                assertThat(upgraded.option(OPT_STRUCTURED_REPLY, new byte[0]).get(0).type()).isEqualTo(REP_ACK);
                upgraded.startTls(TlsTestClients.x509(pki.ca.certificate(), null));
                upgraded.go("default", false);
                assertThat(upgraded.transmissionFlags & FLAG_SEND_DF).isZero();
                assertThat(upgraded.read(0, 512)).hasSize(512);
            }
            assertThat(fixture.server.stats().tlsHandshakes()).isEqualTo(1);
            assertThat(fixture.server.stats().tlsRequiredRefusals()).isZero();
        }
    }

    @Test
    void closingTheServerEndsItsTlsConnections() throws Exception {
        // Proves a server stopping with idle TLS sessions open ends them at once (the TLS reader sees its socket's
        // input end), well within the close grace period that would otherwise cut them off.
        TestPki pki = new TestPki("test CA");
        NbdFixture fixture = x509Server(TlsMode.REQUIRE, false, pki);
        try (NbdTestClient client = fixture.client().hello()) {
            client.startTls(TlsTestClients.x509(pki.ca.certificate(), null));
            client.go("default", true);
            assertThat(client.read(0, 512)).hasSize(512);
            long startNs = System.nanoTime();
            fixture.server.close();
            assertThat(Duration.ofNanos(System.nanoTime() - startNs)).isLessThan(NbdServer.CLOSE_GRACE);
            assertThat(fixture.server.connectionsOpen()).isZero();
            client.awaitServerClose();
        } finally {
            fixture.close();
        }
    }

    @Test
    void offRefusesStartTlsWithPolicyAndSaysSoOnce() throws Exception {
        // Proves --tls=off (NOTLS): STARTTLS gets ERR_POLICY, the client may go on in plain text, and the refusal
        // is counted and logged once per connection.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient client = fixture.client().hello()) {
            assertThat(client.option(OPT_STARTTLS, new byte[0]).get(0).type()).isEqualTo(REP_ERR_POLICY);
            assertThat(client.option(OPT_STARTTLS, new byte[0]).get(0).type()).isEqualTo(REP_ERR_POLICY);
            client.go("default", false);
            assertThat(client.read(0, 512)).hasSize(512);
            assertThat(fixture.server.stats().tlsOffRefusals()).isEqualTo(1);
            assertThat(fixture.log).containsExactly("nbd: 127.0.0.1: asked for TLS, which this server does not offer"
                    + " (--tls=off); answered NBD_REP_ERR_POLICY");
        }
    }

    @Test
    void aTlsHandshakeThatNeverStartsEndsAtTheHandshakeTimeout() throws Exception {
        // Proves the handshake timeout covers the TLS handshake: a client that gets the STARTTLS ACK and sends
        // nothing is closed as a handshake timeout, not counted as a failed handshake.
        TestPki pki = new TestPki("test CA");
        Path files = pki.writeServerFiles(dir.resolve("server"), pki.server());
        NbdLimits limits = NbdLimits.DEFAULTS.withTimeouts(Duration.ofMillis(300), Duration.ZERO,
                Duration.ofSeconds(60));
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers(),
                new TlsSettings(TlsMode.REQUIRE, TlsCredentials.x509(files, false)));
             NbdTestClient client = fixture.client().hello()) {
            assertThat(client.startTls(socket -> new NbdTestClient.TlsStreams(socket.getInputStream(),
                    socket.getOutputStream())).type()).isEqualTo(REP_ACK);
            assertThat(client.serverClosed()).isTrue();
            assertThat(fixture.server.stats().handshakeTimeouts()).isEqualTo(1);
            assertThat(fixture.server.stats().tlsHandshakeFailures()).isZero();
        }
    }
}

package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS credentials are checked once at start-up: every bad file is one line naming it; good ones load. */
class TlsCredentialsTest {
    @TempDir
    Path dir;

    @Test
    void goodX509FilesLoadInPkcs8AndPkcs1() throws Exception {
        // Proves a PKCS#8 EC key and a PKCS#1 RSA key ("BEGIN RSA PRIVATE KEY", as older openssl writes) both load.
        TestPki pki = new TestPki("CA");
        Path ec = pki.writeServerFiles(dir.resolve("ec"), pki.server());
        assertThat(TlsCredentials.x509(ec, false).description()).isEqualTo("X.509");
        assertThat(TlsCredentials.x509(ec, true).description()).isEqualTo("X.509, client certificates verified");
        KeyPair rsa = TestPki.rsaKeys();
        Path pkcs1 = pki.writeServerFiles(dir.resolve("rsa"), pki.server(rsa, Instant.now().minusSeconds(60),
                Instant.now().plus(Duration.ofDays(1))));
        TestPki.writePem(pkcs1.resolve(TlsCredentials.SERVER_KEY), rsa.getPrivate());
        assertThat(Files.readString(pkcs1.resolve(TlsCredentials.SERVER_KEY))).contains("BEGIN RSA PRIVATE KEY");
        assertThat(TlsCredentials.x509(pkcs1, false).description()).isEqualTo("X.509");
    }

    @Test
    void badX509FilesAreOneLineErrors() throws Exception {
        // Proves the messages for an expired or not yet valid certificate, a key of another certificate, missing
        // files, a file that is not PEM, and client verification without ca-cert.pem.
        TestPki pki = new TestPki("CA");
        Instant now = Instant.now();
        Path expired = pki.writeServerFiles(dir.resolve("expired"), pki.server(TestPki.ecKeys(),
                now.minus(Duration.ofDays(3)), now.minus(Duration.ofDays(1))));
        Path future = pki.writeServerFiles(dir.resolve("future"), pki.server(TestPki.ecKeys(),
                now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(3))));
        Path mismatched = pki.writeServerFiles(dir.resolve("mismatched"), pki.server());
        TestPki.writePkcs8(mismatched.resolve(TlsCredentials.SERVER_KEY), TestPki.ecKeys().getPrivate());
        Path noKey = pki.writeServerFiles(dir.resolve("nokey"), pki.server());
        Files.delete(noKey.resolve(TlsCredentials.SERVER_KEY));
        Path notPem = pki.writeServerFiles(dir.resolve("notpem"), pki.server());
        Files.writeString(notPem.resolve(TlsCredentials.SERVER_CERT), "hello\n");
        Path noCa = pki.writeServerFiles(dir.resolve("noca"), pki.server());
        Files.delete(noCa.resolve(TlsCredentials.CA_CERT));
        Map<Path, String> cases = Map.of(
                expired, "server-cert.pem: the certificate expired on",
                future, "server-cert.pem: the certificate is not valid before",
                mismatched, "server-key.pem is not the private key of",
                noKey, "missing " + noKey.resolve(TlsCredentials.SERVER_KEY),
                notPem, "server-cert.pem: no PEM certificate",
                dir.resolve("absent"), "is not a directory");
        for (Map.Entry<Path, String> c : cases.entrySet()) {
            assertThatThrownBy(() -> TlsCredentials.x509(c.getKey(), false)).as(c.getValue())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(c.getValue())
                    .message().doesNotContain("\n");
        }
        assertThat(TlsCredentials.x509(noCa, false).description()).isEqualTo("X.509");
        assertThatThrownBy(() -> TlsCredentials.x509(noCa, true)).hasMessageContaining("--tls-verify-peer needs");
    }

    @Test
    void pskFilesAreReadAsPsktoolWritesThemAndMistakesNameTheLine() throws Exception {
        // Proves the username:hexkey format (blank lines skipped) and a one-line error for each malformed line.
        String key = "0123456789abcdef".repeat(4);
        Path good = Files.writeString(dir.resolve("good.psk"), "alice:" + key + "\n\nbob:" + key.toUpperCase() + "\n");
        assertThat(TlsCredentials.psk(good).description()).isEqualTo("PSK, 2 identities");
        assertThat(PskFile.read(good).get("bob")).hasSize(32);
        Map<String, String> cases = Map.of(
                "alice" + key + "\n", "line 1: must be username:hexkey",
                "alice:" + key + "\nalice:" + key + "\n", "line 2: username \"alice\" is given twice",
                "alice:xyz\n", "line 1: the key must be hexadecimal",
                "alice:abcd\n", "line 1: the key is 2 bytes; it must be 16..64",
                "\n\n", "no username:hexkey line");
        int i = 0;
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path file = Files.writeString(dir.resolve("bad" + i++ + ".psk"), c.getKey());
            assertThatThrownBy(() -> TlsCredentials.psk(file)).as(c.getValue())
                    .hasMessageContaining("--tls-psk " + file).hasMessageContaining(c.getValue());
        }
        assertThatThrownBy(() -> TlsCredentials.psk(dir.resolve("absent.psk"))).hasMessageContaining("cannot read");
    }

    @Test
    void settingsRefuseCredentialsThatDoNotFitTheMode() throws Exception {
        // Proves TlsSettings' relation checks: on/require need credentials, off takes none.
        Path keys = Files.writeString(dir.resolve("k.psk"), "a:" + "00".repeat(16) + "\n");
        assertThatThrownBy(() -> new TlsSettings(TlsMode.REQUIRE, null)).hasMessageContaining("--tls=require needs");
        assertThatThrownBy(() -> new TlsSettings(TlsMode.OFF, TlsCredentials.psk(keys)))
                .hasMessageContaining("--tls is off");
        assertThat(TlsMode.parse(" Require ")).isEqualTo(TlsMode.REQUIRE);
    }
}

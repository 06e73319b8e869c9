package io.blockcache.nbd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * The server's TLS credentials, loaded and checked once at start-up so that a mistake stops {@code serve} with one
 * line instead of failing every client's handshake: X.509 from a directory with nbdkit's file names
 * ({@value #CA_CERT}, {@value #SERVER_CERT}, {@value #SERVER_KEY}; nbdkit's docs/nbdkit-tls.pod), or pre-shared
 * keys from a psktool file ({@link PskFile}). Immutable: any thread.
 */
public final class TlsCredentials {
    /** CA certificates that client certificates must chain to (read only when clients are verified). */
    public static final String CA_CERT = "ca-cert.pem";
    /** The server's certificate, then any intermediate certificates. */
    public static final String SERVER_CERT = "server-cert.pem";
    /** The server certificate's private key, unencrypted (PKCS#8 or PKCS#1). */
    public static final String SERVER_KEY = "server-key.pem";

    private final TlsHandshaker handshaker;
    /** Where they came from, e.g. "X.509 from /etc/blockcache/tls": what a reload compares. */
    private final String source;

    private TlsCredentials(TlsHandshaker handshaker, String source) {
        this.handshaker = handshaker;
        this.source = source;
    }

    /**
     * X.509 credentials from {@code directory}.
     *
     * @param verifyClients ask every client for a certificate and refuse those that do not chain to
     *     {@value #CA_CERT} (which must then exist)
     * @throws IllegalArgumentException one line naming the file and the problem: missing, unreadable, not PEM, an
     *     encrypted key, a certificate expired or not yet valid, a key that does not belong to the certificate
     */
    public static TlsCredentials x509(Path directory, boolean verifyClients) {
        Objects.requireNonNull(directory, "directory");
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException("--tls-certificates " + directory + " is not a directory");
        }
        List<X509Certificate> chain = PemFiles.certificates(readable(directory.resolve(SERVER_CERT)));
        PrivateKey key = PemFiles.privateKey(readable(directory.resolve(SERVER_KEY)));
        X509Certificate server = chain.get(0);
        checkValidity(server, directory.resolve(SERVER_CERT));
        checkKeyMatches(key, server.getPublicKey(), directory);
        List<X509Certificate> authorities = null;
        if (verifyClients) {
            Path caFile = directory.resolve(CA_CERT);
            if (!Files.exists(caFile)) {
                throw new IllegalArgumentException("--tls-verify-peer needs " + caFile + " (the CA certificates"
                        + " that client certificates must chain to)");
            }
            authorities = PemFiles.certificates(readable(caFile));
        }
        try {
            return new TlsCredentials(new X509Handshaker(chain, key, authorities), "X.509 from " + directory
                    + (verifyClients ? ", client certificates verified" : ""));
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("--tls-certificates " + directory + ": the JDK refuses the key or"
                    + " certificates: " + e.getMessage());
        }
    }

    /**
     * Pre-shared keys from a psktool file.
     *
     * @throws IllegalArgumentException one line naming the file, line and problem
     */
    public static TlsCredentials psk(Path file) {
        return new TlsCredentials(new PskHandshaker(PskFile.read(Objects.requireNonNull(file, "file"))),
                "PSK from " + file);
    }

    /** The PSK identities (user names) of a PSK file, in name order; null for X.509 credentials. */
    public java.util.Set<String> pskIdentities() {
        return handshaker instanceof PskHandshaker psk ? psk.identities() : null;
    }

    /** What kind of credentials, for the operator's start-up line. */
    public String description() {
        return handshaker.description();
    }

    /** Where the credentials were read from, e.g. {@code X.509 from /etc/blockcache/tls}. */
    public String source() {
        return source;
    }

    TlsHandshaker handshaker() {
        return handshaker;
    }

    private static Path readable(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException((Files.exists(file) ? "cannot read " : "missing ") + file);
        }
        return file;
    }

    private static void checkValidity(X509Certificate certificate, Path file) {
        try {
            certificate.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new IllegalArgumentException(file + ": the certificate expired on " + certificate.getNotAfter());
        } catch (CertificateNotYetValidException e) {
            throw new IllegalArgumentException(file + ": the certificate is not valid before "
                    + certificate.getNotBefore());
        }
    }

    /** Signs a fixed text with the key and verifies it with the certificate's public key. */
    private static void checkKeyMatches(PrivateKey key, PublicKey certified, Path directory) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> null; // e.g. RSASSA-PSS: left to the handshake
        };
        if (algorithm == null) {
            return;
        }
        byte[] text = "blockcache key check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(text);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certified);
            verifier.update(text);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException(directory.resolve(SERVER_KEY) + " is not the private key of "
                    + directory.resolve(SERVER_CERT));
        }
    }
}

package io.blockcache.nbd;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Throwaway X.509 certificates for TLS tests, made with BouncyCastle's bcpkix (no external tool): a CA, server and
 * client certificates it signs (the server's names localhost and 127.0.0.1, as libnbd and qemu check them), and
 * PEM files with the names nbdkit, libnbd and qemu use. Keys are EC P-256 (fast to make) unless RSA is asked for.
 */
public final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(1);
    private static final java.security.Provider BOUNCY_CASTLE =
            new org.bouncycastle.jce.provider.BouncyCastleProvider();

    /** One certificate and its key. */
    public record Issued(X509Certificate certificate, KeyPair keys) {
    }

    public final Issued ca;

    /** A new CA named {@code name}. */
    public TestPki(String name) throws Exception {
        KeyPair keys = ecKeys();
        ca = new Issued(sign(new X500Name("CN=" + name), keys, new X500Name("CN=" + name), keys.getPrivate(),
                Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)), Role.CA), keys);
    }

    public enum Role { CA, SERVER, CLIENT }

    /** A server certificate valid from {@code notBefore} to {@code notAfter}. */
    public Issued server(KeyPair keys, Instant notBefore, Instant notAfter) throws Exception {
        return new Issued(sign(new X500Name("CN=localhost"), keys, caName(), ca.keys().getPrivate(), notBefore,
                notAfter, Role.SERVER), keys);
    }

    public Issued server() throws Exception {
        return server(ecKeys(), Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)));
    }

    /** A client certificate valid from {@code notBefore} to {@code notAfter}. */
    public Issued client(Instant notBefore, Instant notAfter) throws Exception {
        KeyPair keys = ecKeys();
        return new Issued(sign(new X500Name("CN=client"), keys, caName(), ca.keys().getPrivate(), notBefore,
                notAfter, Role.CLIENT), keys);
    }

    public Issued client() throws Exception {
        return client(Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)));
    }

    /** Writes ca-cert.pem, server-cert.pem and server-key.pem (PKCS#8) into {@code dir}; returns it. */
    public Path writeServerFiles(Path dir, Issued server) throws IOException {
        Files.createDirectories(dir);
        writePem(dir.resolve(TlsCredentials.CA_CERT), ca.certificate());
        writePem(dir.resolve(TlsCredentials.SERVER_CERT), server.certificate());
        writePkcs8(dir.resolve(TlsCredentials.SERVER_KEY), server.keys().getPrivate());
        return dir;
    }

    /** Writes ca-cert.pem and, if given, client-cert.pem and client-key.pem (libnbd's and qemu's names). */
    public Path writeClientFiles(Path dir, Issued client) throws IOException {
        Files.createDirectories(dir);
        writePem(dir.resolve("ca-cert.pem"), ca.certificate());
        if (client != null) {
            writePem(dir.resolve("client-cert.pem"), client.certificate());
            writePkcs8(dir.resolve("client-key.pem"), client.keys().getPrivate());
        }
        return dir;
    }

    /** Writes objects as PEM in their traditional form (an RSA key as PKCS#1 "RSA PRIVATE KEY"). */
    public static void writePem(Path file, Object... objects) throws IOException {
        try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(out)) {
            for (Object object : objects) {
                pem.writeObject(object);
            }
        }
    }

    public static void writePkcs8(Path file, PrivateKey key) throws IOException {
        try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(out)) {
            pem.writeObject(new JcaPKCS8Generator(key, null));
        }
    }

    public static KeyPair ecKeys() throws GeneralSecurityException {
        // BouncyCastle's keys: their PKCS#8 form carries the curve and public key, which GnuTLS (libnbd, qemu) needs;
        // the JDK's leaves them out and GnuTLS refuses it ("ASN1 parser: Element was not found").
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", BOUNCY_CASTLE);
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    public static KeyPair rsaKeys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private X500Name caName() {
        return new X500Name(ca.certificate().getSubjectX500Principal().getName());
    }

    private static X509Certificate sign(X500Name subject, KeyPair keys, X500Name issuer, PrivateKey issuerKey,
                                        Instant notBefore, Instant notAfter, Role role)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                BigInteger.valueOf(SERIAL.getAndIncrement()), Date.from(notBefore), Date.from(notAfter), subject,
                keys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(role == Role.CA));
        switch (role) {
            case CA -> builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            case SERVER -> {
                builder.addExtension(Extension.keyUsage, true,
                        new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
                builder.addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            }
            case CLIENT -> {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                builder.addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            }
            default -> throw new IllegalStateException();
        }
        String algorithm = issuerKey.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
        return new JcaX509CertificateConverter().getCertificate(builder.build(
                new JcaContentSignerBuilder(algorithm).build(issuerKey)));
    }
}

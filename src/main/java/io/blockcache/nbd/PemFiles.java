package io.blockcache.nbd;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the PEM files of an X.509 TLS set-up (the files nbdkit and qemu read: docs/OPERATIONS.md §9) with
 * BouncyCastle's PEM parser: certificates (one or a chain) and an unencrypted private key as PKCS#8
 * ({@code BEGIN PRIVATE KEY}) or the older PKCS#1 / SEC 1 forms ({@code BEGIN RSA PRIVATE KEY},
 * {@code BEGIN EC PRIVATE KEY}). Every failure is an {@link IllegalArgumentException} with one line naming the file.
 *
 * <p>Thread rule: any thread (start-up only).
 */
final class PemFiles {
    /** PEM objects read from one file at most: a certificate chain is a handful; this bounds a wrong file. */
    static final int OBJECTS_MAX = 64;

    private PemFiles() {
    }

    /** The certificates in {@code file}, in file order; at least one. */
    static List<X509Certificate> certificates(Path file) {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object object : objects(file)) {
            if (!(object instanceof X509CertificateHolder holder)) {
                throw new IllegalArgumentException(file + ": holds a " + kind(object) + " where certificates were"
                        + " expected");
            }
            try {
                certificates.add(converter.getCertificate(holder));
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException(file + ": unreadable certificate: " + e.getMessage());
            }
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException(file + ": no PEM certificate (BEGIN CERTIFICATE) in it");
        }
        return certificates;
    }

    /** The one private key in {@code file}. */
    static PrivateKey privateKey(Path file) {
        List<Object> objects = objects(file);
        if (objects.size() != 1) {
            throw new IllegalArgumentException(file + ": must hold exactly one PEM private key, holds "
                    + objects.size() + " PEM objects");
        }
        Object object = objects.get(0);
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try {
            if (object instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            if (object instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": unreadable private key: " + e.getMessage());
        }
        if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
            throw new IllegalArgumentException(file + ": the private key is encrypted; the server needs it"
                    + " unencrypted (protect the file with its permissions instead)");
        }
        throw new IllegalArgumentException(file + ": holds a " + kind(object) + " where a private key was expected");
    }

    private static List<Object> objects(Path file) {
        List<Object> objects = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file); PEMParser parser = new PEMParser(reader)) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (objects.size() == OBJECTS_MAX) {
                    throw new IllegalArgumentException(file + ": more than " + OBJECTS_MAX + " PEM objects");
                }
                objects.add(object);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof IllegalArgumentException problem) {
                throw problem;
            }
            throw new IllegalArgumentException(file + ": cannot read it as PEM: " + e.getMessage());
        }
        return objects;
    }

    private static String kind(Object object) {
        return object.getClass().getSimpleName();
    }
}

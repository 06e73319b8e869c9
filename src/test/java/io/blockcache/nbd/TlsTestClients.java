package io.blockcache.nbd;

import java.net.Socket;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.tls.BasicTlsPSKIdentity;
import org.bouncycastle.tls.PSKTlsClient;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/** TLS clients for {@link NbdTestClient#startTls}: X.509 through the JDK, PSK through BouncyCastle. */
final class TlsTestClients {
    private TlsTestClients() {
    }

    /**
     * An X.509 client that trusts {@code trusted} and presents {@code client} (null: no certificate).
     */
    static NbdTestClient.TlsUpgrade x509(X509Certificate trusted, TestPki.Issued client) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", trusted);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (client != null) {
            char[] password = "test".toCharArray();
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", client.keys().getPrivate(), password,
                    new X509Certificate[] {client.certificate()});
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(),
                null);
        return socket -> {
            // autoClose false: a failed handshake leaves the socket open, so the test can wait for the server's close.
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, "localhost",
                    socket.getPort(), false);
            tls.setUseClientMode(true);
            tls.startHandshake();
            return new NbdTestClient.TlsStreams(tls.getInputStream(), tls.getOutputStream());
        };
    }

    /** A PSK client with {@code identity} and {@code key}. */
    static NbdTestClient.TlsUpgrade psk(String identity, byte[] key) {
        return socket -> {
            // Streams that ignore close: a failed handshake leaves the socket open, so the test can wait for the
            // server's close.
            TlsClientProtocol protocol = new TlsClientProtocol(new java.io.FilterInputStream(socket.getInputStream()) {
                @Override
                public void close() {
                }
            }, new java.io.FilterOutputStream(socket.getOutputStream()) {
                @Override
                public void write(byte[] bytes, int offset, int length) throws java.io.IOException {
                    out.write(bytes, offset, length);
                }

                @Override
                public void close() {
                }
            });
            protocol.connect(new PSKTlsClient(new BcTlsCrypto(new SecureRandom()),
                    new BasicTlsPSKIdentity(identity, key)));
            return new NbdTestClient.TlsStreams(protocol.getInputStream(), protocol.getOutputStream());
        };
    }

    /** Not TLS at all: sends {@code bytes} where a ClientHello belongs, then reads what the server answers. */
    static NbdTestClient.TlsUpgrade garbage(byte[] bytes) {
        return (Socket socket) -> {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return new NbdTestClient.TlsStreams(socket.getInputStream(), socket.getOutputStream());
        };
    }
}

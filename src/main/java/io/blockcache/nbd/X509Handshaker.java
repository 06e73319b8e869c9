package io.blockcache.nbd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS with X.509 certificates through the JDK's own TLS (JSSE): an {@code SSLSocket} in server mode layered over
 * the connection's socket. TLS 1.2 and 1.3 only, as the NBD spec asks ("TLS versions": 1.2 MUST, older SHOULD
 * NOT by default). With client verification every client must present a certificate that chains to the CA
 * certificates given; otherwise none is asked for.
 *
 * <p>Thread rule: any thread; built once at start-up, shared by all connections.
 */
final class X509Handshaker implements TlsHandshaker {
    /** The protocol versions offered, newest first. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /** The in-memory key store's password: it never leaves this process, so any constant will do. */
    private static final char[] KEY_STORE_PASSWORD = "blockcache".toCharArray();

    private final SSLContext context;
    private final boolean verifyClients;

    /**
     * @param chain the server's certificate first, then any intermediates
     * @param key the private key of {@code chain.get(0)}
     * @param clientAuthorities CA certificates a client's certificate must chain to; null: clients are not asked
     *     for one
     * @throws GeneralSecurityException if the JDK refuses the key or certificates
     */
    X509Handshaker(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> clientAuthorities)
            throws GeneralSecurityException, IOException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", key, KEY_STORE_PASSWORD, chain.toArray(X509Certificate[]::new));
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, KEY_STORE_PASSWORD);
        TrustManagerFactory trustManagers = null;
        if (clientAuthorities != null) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < clientAuthorities.size(); i++) {
                trusted.setCertificateEntry("ca-" + i, clientAuthorities.get(i));
            }
            trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trusted);
        }
        context = SSLContext.getInstance("TLS");
        // A null random source makes JSSE use the platform's default secure one.
        context.init(keyManagers.getKeyManagers(), trustManagers == null ? null : trustManagers.getTrustManagers(),
                null);
        verifyClients = clientAuthorities != null;
    }

    @Override
    public TlsChannel handshake(SocketChannel socket) throws IOException {
        InetSocketAddress peer = (InetSocketAddress) socket.getRemoteAddress();
        // autoClose false: a failed handshake must not close the socket before the failure is counted and logged;
        // the connection closes it.
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket.socket(),
                peer.getAddress().getHostAddress(), peer.getPort(), false);
        tls.setUseClientMode(false);
        tls.setEnabledProtocols(PROTOCOLS);
        tls.setNeedClientAuth(verifyClients);
        tls.startHandshake();
        // shutdownOutput sends close_notify without waiting for the client's (close would, in TLS 1.2).
        return new TlsChannel(socket, tls.getInputStream(), tls.getOutputStream(), tls::shutdownOutput);
    }

    @Override
    public String description() {
        return verifyClients ? "X.509, client certificates verified" : "X.509";
    }
}

package io.blockcache.nbd;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Map;
import java.util.TreeMap;
import org.bouncycastle.tls.PSKTlsServer;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsFatalAlertReceived;
import org.bouncycastle.tls.TlsPSKIdentityManager;
import org.bouncycastle.tls.TlsServerProtocol;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

/**
 * TLS with pre-shared keys (RFC 4279, as GnuTLS and so libnbd, qemu and nbdkit speak it) through BouncyCastle's
 * low-level TLS API, because the JDK's JSSE has no PSK cipher suites: a {@code TlsServerProtocol} in blocking mode
 * over the socket's streams and a {@code PSKTlsServer} that looks identities up in the keys loaded at start-up
 * ({@link PskFile}). An unknown identity ends the handshake with the unknown_psk_identity alert; a wrong key fails
 * the Finished check (decrypt_error or bad_record_mac).
 *
 * <p>Thread rule: any thread; built once at start-up, shared by all connections.
 */
final class PskHandshaker implements TlsHandshaker {
    private final TlsCrypto crypto;
    /** Identity (UTF-8) to key; read-only after construction. */
    private final Map<String, byte[]> keys;

    /** @param keys identity to key, at least one */
    PskHandshaker(Map<String, byte[]> keys) {
        this.keys = new TreeMap<>(keys);
        // TLS needs unpredictable randomness (handshake nonces, ephemeral keys): a seeded Prng would be a hole.
        this.crypto = new BcTlsCrypto(new SecureRandom());
    }

    @Override
    public TlsChannel handshake(SocketChannel socket) throws IOException {
        Socket plain = socket.socket();
        // BouncyCastle closes its streams when a handshake fails; closing a socket's stream closes the socket, and
        // the client would see the close before the failure is counted and logged. The connection closes it.
        TlsServerProtocol protocol = new TlsServerProtocol(new FilterInputStream(plain.getInputStream()) {
            @Override
            public void close() {
            }
        }, new FilterOutputStream(plain.getOutputStream()) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                out.write(bytes, offset, length); // FilterOutputStream would write byte by byte
            }

            @Override
            public void close() throws IOException {
                out.flush();
            }
        });
        Identities identities = new Identities();
        try {
            protocol.accept(new PSKTlsServer(crypto, identities));
        } catch (TlsFatalAlert | TlsFatalAlertReceived e) {
            String known = identities.asked == null ? "" : identities.known ? "PSK identity '" + identities.asked
                    + "' (the client's key differs from ours?): " : "unknown PSK identity '" + identities.asked + "': ";
            throw new IOException(known + e.getMessage(), e);
        }
        // close sends close_notify without waiting for the client's; the connection then closes the socket.
        // The handshake succeeded, so the identity asked for is known and its key proved: the client is that user.
        return new TlsChannel(socket, protocol.getInputStream(), protocol.getOutputStream(), protocol::close,
                identities.name);
    }

    /** The identities (user names) of the file, for checking allow-lists at start-up. */
    java.util.Set<String> identities() {
        return java.util.Collections.unmodifiableSet(keys.keySet());
    }

    @Override
    public String description() {
        return "PSK, " + keys.size() + (keys.size() == 1 ? " identity" : " identities");
    }

    /**
     * Looks a client's identity up; no hint is sent (libnbd and qemu ignore it). One per handshake: it remembers
     * the identity asked for, for the operator's line when the handshake fails.
     */
    private final class Identities implements TlsPSKIdentityManager {
        private String asked;
        /** The identity as sent (not sanitised), for the allow-lists once the handshake succeeded. */
        private String name;
        private boolean known;

        @Override
        public byte[] getHint() {
            return null;
        }

        @Override
        public byte[] getPSK(byte[] identity) {
            String name = new String(identity, java.nio.charset.StandardCharsets.UTF_8);
            // For the log line: a client's identity is untrusted text, so no control characters and bounded.
            asked = name.codePoints().limit(PskFile.IDENTITY_BYTES_MAX).map(c -> Character.isISOControl(c) ? '?' : c)
                    .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
            byte[] key = keys.get(name);
            known = key != null;
            this.name = name;
            return key == null ? null : key.clone();
        }
    }
}

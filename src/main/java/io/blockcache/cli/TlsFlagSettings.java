package io.blockcache.cli;

import io.blockcache.nbd.TlsCredentials;
import io.blockcache.nbd.TlsMode;
import io.blockcache.nbd.TlsSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code serve} TLS options (flags and config keys of the same names, {@link ServeOptions}):
 * {@code --tls=off|on|require}, {@code --tls-certificates DIR} or {@code --tls-psk FILE}, {@code --tls-verify-peer},
 * and the remote rule with {@code --insecure}, the explicit consent to serve a non-loopback address without TLS.
 * Credentials are loaded and checked here, once, so a bad file stops {@code serve} with one line
 * (docs/OPERATIONS.md §9).
 */
final class TlsFlagSettings {
    private TlsFlagSettings() {
    }

    /**
     * Checks how the TLS options go together and loads the credentials.
     *
     * @param certificates a directory with ca-cert.pem, server-cert.pem, server-key.pem, or null
     * @param psk a psktool file of {@code username:hexkey} lines, or null
     * @param verifyPeer ask clients for a certificate that chains to ca-cert.pem
     * @throws IllegalArgumentException with one line about the first problem (a combination, a missing or bad file)
     */
    static TlsSettings resolve(TlsMode mode, Path certificates, Path psk, boolean verifyPeer) {
        if (certificates != null && psk != null) {
            throw new IllegalArgumentException("give --tls-certificates or --tls-psk, not both");
        }
        if (verifyPeer && certificates == null) {
            throw new IllegalArgumentException("--tls-verify-peer needs --tls-certificates DIR (with ca-cert.pem)");
        }
        if (mode == TlsMode.OFF) {
            if (certificates != null || psk != null) {
                throw new IllegalArgumentException("--" + (psk != null ? "tls-psk" : "tls-certificates") + " was"
                        + " given but --tls is off; add --tls=require (or --tls=on to let clients choose)");
            }
            return TlsSettings.OFF;
        }
        if (certificates == null && psk == null) {
            throw new IllegalArgumentException("--tls=" + mode.flagValue() + " needs --tls-certificates DIR or"
                    + " --tls-psk FILE");
        }
        TlsCredentials credentials = psk != null ? TlsCredentials.psk(psk) : TlsCredentials.x509(certificates,
                verifyPeer);
        return new TlsSettings(mode, credentials);
    }

    /**
     * {@code --allow-remote} (which any non-loopback listen address needs) refuses to start without both
     * TLS required for NBD ({@code --tls=require}: plain text can be read and, with {@code --tls=on}, a man in the
     * middle can keep a client from upgrading) and an admin token ({@code --admin-token-file}: the admin API can
     * switch modes and start drains), unless {@code --insecure} says the network is trusted. The one line names
     * every part that is missing. Runs after the loopback check.
     */
    static void checkRemote(boolean allowRemote, InetSocketAddress nbd, InetSocketAddress admin, TlsSettings tls,
                            boolean adminToken, boolean insecure) {
        boolean remote = allowRemote || !nbd.getAddress().isLoopbackAddress()
                || !admin.getAddress().isLoopbackAddress();
        if (insecure || !remote) {
            return;
        }
        List<String> missing = new java.util.ArrayList<>();
        if (tls.mode() != TlsMode.REQUIRE) {
            missing.add("TLS for NBD (--tls=require with --tls-certificates DIR or --tls-psk FILE; it is --tls="
                    + tls.mode().flagValue() + ")");
        }
        if (!adminToken) {
            missing.add("an admin API token (--admin-token-file FILE)");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("--allow-remote (NBD on " + nbd.getAddress().getHostAddress()
                    + ", admin API on " + admin.getAddress().getHostAddress() + ") needs " + String.join(" and ",
                    missing) + ", or --insecure if the network is trusted: anyone who reaches it could read or"
                    + " change the volumes");
        }
    }
}

package io.blockcache.cli;

import io.blockcache.nbd.TlsCredentials;
import io.blockcache.nbd.TlsMode;
import io.blockcache.nbd.TlsSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The {@code serve} TLS flags (and config keys of the same names): {@code --tls=off|on|require},
 * {@code --tls-certificates DIR} or {@code --tls-psk FILE}, {@code --tls-verify-peer}, and {@code --insecure}, the
 * explicit consent to serve a non-loopback address without TLS. A flag wins over the config file. Credentials are
 * loaded and checked here, once, so a bad file stops {@code serve} with one line (docs/OPERATIONS.md §9).
 */
final class TlsFlagSettings {
    static final String TLS = "tls";
    static final String CERTIFICATES = "tls-certificates";
    static final String PSK = "tls-psk";
    static final String VERIFY_PEER = "tls-verify-peer";
    static final String INSECURE = "insecure";
    /** Every key, for the config file's list of known keys. */
    static final List<String> KEYS = List.of(TLS, CERTIFICATES, PSK, VERIFY_PEER, INSECURE);

    /**
     * The TLS flags as given; null or false where not given.
     *
     * @param mode {@code off}, {@code on} or {@code require}
     * @param certificates a directory with ca-cert.pem, server-cert.pem, server-key.pem
     * @param psk a psktool file of {@code username:hexkey} lines
     * @param verifyPeer ask clients for a certificate that chains to ca-cert.pem
     * @param insecure allow non-loopback listen addresses without {@code --tls=require} or an admin token
     */
    record Flags(String mode, String certificates, String psk, boolean verifyPeer, boolean insecure) {
        static final Flags NONE = new Flags(null, null, null, false, false);
    }

    private TlsFlagSettings() {
    }

    /**
     * Resolves the TLS settings and loads the credentials.
     *
     * @throws IllegalArgumentException with one line about the first problem (a flag's value, a missing or bad file)
     */
    static TlsSettings resolve(Flags flags, Properties config) {
        TlsMode mode = TlsMode.parse(pick(flags.mode(), config, TLS, "off"));
        String certificates = pick(flags.certificates(), config, CERTIFICATES, null);
        String psk = pick(flags.psk(), config, PSK, null);
        boolean verifyPeer = ConfigBoolean.flagOrConfig(flags.verifyPeer(), config, VERIFY_PEER);
        if (certificates != null && psk != null) {
            throw new IllegalArgumentException("give --tls-certificates or --tls-psk, not both");
        }
        if (verifyPeer && certificates == null) {
            throw new IllegalArgumentException("--tls-verify-peer needs --tls-certificates DIR (with ca-cert.pem)");
        }
        if (mode == TlsMode.OFF) {
            if (certificates != null || psk != null) {
                throw new IllegalArgumentException("--" + (psk != null ? PSK : CERTIFICATES) + " was given but --tls"
                        + " is off; add --tls=require (or --tls=on to let clients choose)");
            }
            return TlsSettings.OFF;
        }
        if (certificates == null && psk == null) {
            throw new IllegalArgumentException("--tls=" + mode.flagValue() + " needs --tls-certificates DIR or"
                    + " --tls-psk FILE");
        }
        TlsCredentials credentials = psk != null ? TlsCredentials.psk(Path.of(psk))
                : TlsCredentials.x509(Path.of(certificates), verifyPeer);
        return new TlsSettings(mode, credentials);
    }

    /** True if {@code --insecure} was given (flag or config). */
    static boolean insecure(Flags flags, Properties config) {
        return ConfigBoolean.flagOrConfig(flags.insecure(), config, INSECURE);
    }

    /**
     * Issue 12: {@code --allow-remote} (which any non-loopback listen address needs) refuses to start without both
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

    private static String pick(String flag, Properties config, String key, String fallback) {
        if (flag != null) {
            return flag.strip();
        }
        String configured = config.getProperty(key);
        return configured != null ? configured.strip() : fallback;
    }
}

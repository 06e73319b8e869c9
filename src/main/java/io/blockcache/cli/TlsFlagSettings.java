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
     * @param insecure allow a non-loopback NBD listen address without {@code --tls=require}
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
        boolean verifyPeer = flags.verifyPeer() || Boolean.parseBoolean(config.getProperty(VERIFY_PEER, "false"));
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
        return flags.insecure() || Boolean.parseBoolean(config.getProperty(INSECURE, "false"));
    }

    /**
     * Refuses to serve NBD on a non-loopback address without {@code --tls=require} (plain text can be read and, with
     * {@code --tls=on}, a man in the middle can keep a client from upgrading), and the admin API there at all (it has
     * neither TLS nor a token yet), unless {@code --insecure} says the network is trusted. Runs after the
     * {@code --allow-remote} check.
     */
    static void checkRemote(InetSocketAddress nbd, InetSocketAddress admin, TlsSettings tls, boolean insecure) {
        if (insecure) {
            return;
        }
        if (!nbd.getAddress().isLoopbackAddress() && tls.mode() != TlsMode.REQUIRE) {
            throw new IllegalArgumentException("--nbd-listen " + nbd.getAddress().getHostAddress() + " is not a"
                    + " loopback address and NBD would run without TLS (--tls=" + tls.mode().flagValue() + "): anyone"
                    + " on the network could read or change the volumes. Give --tls=require with --tls-certificates"
                    + " DIR or --tls-psk FILE, or --insecure if the network is trusted.");
        }
        if (!admin.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("--admin-listen " + admin.getAddress().getHostAddress() + " is not a"
                    + " loopback address and the admin API has neither TLS nor a token: anyone on the network could"
                    + " change the cache. Bind it to 127.0.0.1, or give --insecure if the network is trusted.");
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

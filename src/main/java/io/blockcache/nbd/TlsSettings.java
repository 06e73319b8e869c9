package io.blockcache.nbd;

import java.util.Objects;

/**
 * How the NBD server uses TLS, validated once here: a mode, and the credentials that {@link TlsMode#ON} and
 * {@link TlsMode#REQUIRE} need. Immutable: any thread.
 *
 * @param mode off, on or require
 * @param credentials X.509 or PSK; null exactly when {@code mode} is {@link TlsMode#OFF}
 */
public record TlsSettings(TlsMode mode, TlsCredentials credentials) {
    /** No TLS: NBD_OPT_STARTTLS is refused with NBD_REP_ERR_POLICY. */
    public static final TlsSettings OFF = new TlsSettings(TlsMode.OFF, null);

    /** @throws IllegalArgumentException if the credentials do not fit the mode */
    public TlsSettings {
        Objects.requireNonNull(mode, "mode");
        if (mode == TlsMode.OFF && credentials != null) {
            throw new IllegalArgumentException("TLS credentials were given but --tls is off");
        }
        if (mode != TlsMode.OFF && credentials == null) {
            throw new IllegalArgumentException("--tls=" + mode.flagValue() + " needs --tls-certificates DIR or"
                    + " --tls-psk FILE");
        }
    }

    /** The mode and where the credentials come from, e.g. {@code require, PSK from /etc/keys.psk}, or {@code off}. */
    public String summary() {
        return credentials == null ? mode.flagValue() : mode.flagValue() + ", " + credentials.source();
    }

    /** True if a client may (ON) or must (REQUIRE) upgrade with NBD_OPT_STARTTLS. */
    public boolean offered() {
        return mode != TlsMode.OFF;
    }
}

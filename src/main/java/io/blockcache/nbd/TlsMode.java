package io.blockcache.nbd;

import java.util.Locale;

/**
 * Whether the NBD server speaks TLS, in the protocol's terms (doc/proto.md of the reference NBD project, "TLS
 * support"), with nbdkit's flag values ({@code --tls=off|on|require}).
 */
public enum TlsMode {
    /** NOTLS: NBD_OPT_STARTTLS is answered NBD_REP_ERR_POLICY. */
    OFF,
    /**
     * SELECTIVETLS with no TLS-only export: a client may upgrade with NBD_OPT_STARTTLS or go on in plain text.
     * Open to a downgrade by a man in the middle (the spec's "Protocol downgrade attacks"); use {@link #REQUIRE}
     * where that matters.
     */
    ON,
    /**
     * FORCEDTLS: before TLS every option but NBD_OPT_STARTTLS and NBD_OPT_ABORT is answered NBD_REP_ERR_TLS_REQD,
     * and NBD_OPT_EXPORT_NAME, which cannot carry an error, ends the connection.
     */
    REQUIRE;

    /**
     * Parses {@code off}, {@code on} or {@code require} (any case).
     *
     * @throws IllegalArgumentException naming the values allowed
     */
    public static TlsMode parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tls must be off, on or require; got \"" + text + "\"");
        }
    }

    /** The flag's spelling of this mode. */
    public String flagValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.blockcache.cli;

import io.blockcache.nbd.NbdLimits;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code serve} flags (and config keys of the same names) that set {@link NbdLimits}: a flag wins over the
 * config file, the config file over {@link NbdLimits#DEFAULTS}. Durations as {@link Durations} takes them, plus
 * {@code 0} or {@code off} for the timeouts that may be off; sizes as {@link ByteSizes} takes them.
 */
final class NbdLimitSettings {
    static final String HANDSHAKE_TIMEOUT = "nbd-handshake-timeout";
    static final String IDLE_TIMEOUT = "nbd-idle-timeout";
    static final String REPLY_TIMEOUT = "nbd-reply-timeout";
    static final String KEEPALIVE = "nbd-keepalive";
    static final String CONNECTIONS_MAX = "nbd-connections-max";
    static final String CONNECTIONS_PER_ADDRESS_MAX = "nbd-connections-per-address-max";
    static final String BUFFER_MAX = "nbd-buffer-max";
    /** Every key, for the config file's list of known keys. */
    static final List<String> KEYS = List.of(HANDSHAKE_TIMEOUT, IDLE_TIMEOUT, REPLY_TIMEOUT, KEEPALIVE,
            CONNECTIONS_MAX, CONNECTIONS_PER_ADDRESS_MAX, BUFFER_MAX);

    private NbdLimitSettings() {
    }

    /**
     * @param flags values given as flags, by key (absent: not given)
     * @throws IllegalArgumentException naming the flag and what is wrong with it
     */
    static NbdLimits resolve(Map<String, String> flags, Properties config) {
        NbdLimits d = NbdLimits.DEFAULTS;
        try {
            return new NbdLimits(
                    duration(flags, config, HANDSHAKE_TIMEOUT, d.handshakeTimeout(), false),
                    duration(flags, config, IDLE_TIMEOUT, d.idleTimeout(), true),
                    duration(flags, config, REPLY_TIMEOUT, d.replyStallTimeout(), true),
                    duration(flags, config, KEEPALIVE, d.tcpKeepaliveIdle(), true),
                    count(flags, config, CONNECTIONS_MAX, d.connectionsMax()),
                    count(flags, config, CONNECTIONS_PER_ADDRESS_MAX, d.connectionsPerAddressMax()),
                    size(flags, config, BUFFER_MAX, defaultBufferBytes(count(flags, config, CONNECTIONS_MAX,
                            d.connectionsMax()))));
        } catch (IllegalArgumentException e) {
            throw e.getMessage().startsWith("--") ? e : new IllegalArgumentException("NBD limits: " + e.getMessage());
        }
    }

    /**
     * The default budget, or less where the JVM's direct-memory limit is too small for it with the pool and the
     * connections' read buffers (a small machine's default heap), but never below the minimum: then
     * {@link #directMemoryProblem} says what to do.
     */
    static long defaultBufferBytes(int connectionsMax) {
        long fittingBytes = (directMemoryLimitBytes() - NbdLimits.directBytesBesideBudget(connectionsMax)) & -4096L;
        return Math.max(NbdLimits.BUFFER_BYTES_MIN, Math.min(NbdLimits.DEFAULTS.bufferBytesMax(), fittingBytes));
    }

    /**
     * Refuses limits whose buffers could pass the JVM's direct-memory limit (an allocation failure would then be
     * likely rather than a rare accident).
     *
     * @return a one-line problem for the user, or null
     */
    static String directMemoryProblem(NbdLimits limits) {
        long limitBytes = directMemoryLimitBytes();
        long neededBytes = limits.directMemoryBytesMax();
        if (neededBytes <= limitBytes) {
            return null;
        }
        return "the NBD buffers may need " + neededBytes + " bytes of direct memory (--" + BUFFER_MAX + " "
                + limits.bufferBytesMax() + " plus the pool and per-connection buffers) but the JVM allows "
                + limitBytes + "; lower --" + BUFFER_MAX + " or raise -XX:MaxDirectMemorySize in BLOCKCACHE_JAVA_OPTS";
    }

    /** -XX:MaxDirectMemorySize, or the JVM's default for it, the heap's maximum. */
    static long directMemoryLimitBytes() {
        try {
            var diagnostics = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long configured = Long.parseLong(diagnostics.getVMOption("MaxDirectMemorySize").getValue());
            return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException notHotSpot) {
            return Runtime.getRuntime().maxMemory();
        }
    }

    private static String pick(Map<String, String> flags, Properties config, String key) {
        String flag = flags.get(key);
        if (flag != null) {
            return flag.strip();
        }
        String configured = config.getProperty(key);
        return configured == null ? null : configured.strip();
    }

    private static Duration duration(Map<String, String> flags, Properties config, String key, Duration fallback,
                                     boolean mayBeOff) {
        return parsed(flags, config, key, fallback, text -> mayBeOff && (text.equals("0")
                || text.equalsIgnoreCase("off")) ? Duration.ZERO : Duration.ofSeconds(Durations.parseSeconds(text)),
                mayBeOff ? "; 0 or off: never" : "");
    }

    private static int count(Map<String, String> flags, Properties config, String key, int fallback) {
        return parsed(flags, config, key, fallback, text -> {
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("takes a whole number, got \"" + text + "\"");
            }
        }, "");
    }

    private static long size(Map<String, String> flags, Properties config, String key, long fallback) {
        return parsed(flags, config, key, fallback, ByteSizes::parse, "");
    }

    /** The flag's or config's value parsed, or {@code fallback}; a parse error names the flag. */
    private static <T> T parsed(Map<String, String> flags, Properties config, String key, T fallback,
                                java.util.function.Function<String, T> parser, String hint) {
        String text = pick(flags, config, key);
        if (text == null) {
            return fallback;
        }
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            String separator = message.startsWith("takes") ? " " : ": ";
            throw new IllegalArgumentException("--" + key + separator + message + hint);
        }
    }
}

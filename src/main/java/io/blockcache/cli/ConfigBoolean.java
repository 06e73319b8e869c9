package io.blockcache.cli;

import java.util.Locale;
import java.util.Properties;

/**
 * A yes/no config key ({@code allow-remote}, {@code insecure}, {@code tls-verify-peer}): {@code true} or
 * {@code false}, any case. Anything else is a one-line error: {@code Boolean.parseBoolean} would read
 * {@code insecure=yes} as false without a word, and a security switch must not be misread silently.
 */
final class ConfigBoolean {
    private ConfigBoolean() {
    }

    /** True if the flag was given, else the config key's value (false when absent). */
    static boolean flagOrConfig(boolean flag, Properties config, String key) {
        if (flag) {
            return true;
        }
        String value = config.getProperty(key);
        if (value == null) {
            return false;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("config key " + key + " must be true or false; got \""
                    + value.strip() + "\"");
        };
    }
}

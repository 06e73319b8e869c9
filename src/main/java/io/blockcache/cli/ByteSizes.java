package io.blockcache.cli;

import io.blockcache.engine.Quantities;
import java.util.Locale;

/**
 * Sizes on the command line and in output: {@code 1G}, {@code 512M}, {@code 128K}, {@code 4096} (binary
 * units: K = 1024), and the reverse for humans.
 */
final class ByteSizes {
    private ByteSizes() {
    }

    /**
     * Parses a size such as {@code 1G}, {@code 512MiB}, {@code 128k} or {@code 4096} ({@link Quantities#parseBytes},
     * the one size parser); throws on anything else, and on 0.
     */
    static long parse(String text) {
        long bytes = Quantities.parseBytes(text);
        if (bytes <= 0) {
            throw new IllegalArgumentException("size \"" + text + "\" must be positive and below 2^63 bytes");
        }
        return bytes;
    }

    /** A short human form: {@code 16.0 MiB}, {@code 512 B}. */
    static String human(long bytes) {
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        if (bytes < 1024) {
            return bytes + " B";
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}

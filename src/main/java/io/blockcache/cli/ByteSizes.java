package io.blockcache.cli;

import java.util.Locale;

/**
 * Sizes on the command line and in output: {@code 1G}, {@code 512M}, {@code 128K}, {@code 4096} (binary
 * units: K = 1024), and the reverse for humans.
 */
final class ByteSizes {
    private ByteSizes() {
    }

    /** Parses a size such as {@code 1G}, {@code 512MiB}, {@code 128k} or {@code 4096}; throws on anything else. */
    static long parse(String text) {
        String s = text.trim().toUpperCase(Locale.ROOT);
        if (s.endsWith("IB")) {
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("B")) {
            s = s.substring(0, s.length() - 1);
        }
        int shift = 0;
        if (!s.isEmpty()) {
            shift = switch (s.charAt(s.length() - 1)) {
                case 'K' -> 10;
                case 'M' -> 20;
                case 'G' -> 30;
                case 'T' -> 40;
                default -> 0;
            };
        }
        String digits = shift == 0 ? s : s.substring(0, s.length() - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 18) {
            throw new IllegalArgumentException("not a size: \"" + text + "\" (examples: 1G, 512M, 128K, 4096)");
        }
        long value = Long.parseLong(digits);
        if (value <= 0 || Long.numberOfLeadingZeros(value) <= shift) {
            throw new IllegalArgumentException("size \"" + text + "\" must be positive and below 2^63 bytes");
        }
        return value << shift;
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

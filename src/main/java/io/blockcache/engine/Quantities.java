package io.blockcache.engine;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes, rates and durations written by people, parsed once for every place that takes them: the knobs
 * ({@link KnobSpec#parse}), and the command line's sizes, drain rate and durations ({@code cli.ByteSizes},
 * {@code cli.Durations}, {@code drain --rate-max}). Sizes use binary units (K = 1024): {@code 4096}, {@code 512K},
 * {@code 8M}, {@code 1G}, {@code 2T}, optionally followed by {@code B} or {@code iB}; a rate is a size with an
 * optional {@code /s}; a duration is parts such as {@code 1h30m}, {@code 30s}, {@code 500ms}, {@code 250us}, each
 * unit once, or a plain number in a unit the caller names.
 *
 * <p>Pure functions; any thread. Every refusal is an {@link IllegalArgumentException} whose message quotes the text
 * and gives examples.
 */
public final class Quantities {
    /** Nanoseconds per unit of a duration part. */
    public static final long US = 1_000L;
    public static final long MS = 1_000_000L;
    public static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    /** Longest duration part: 18 digits stays below 2^63 before the unit is applied (checked after). */
    private static final Pattern PART = Pattern.compile("(\\d{1,18})(ns|us|µs|ms|s|m|h|d)");

    private Quantities() {
    }

    /**
     * Bytes in a size such as {@code 1G}, {@code 512MiB}, {@code 128k}, {@code 4096} or {@code 0}.
     *
     * @throws IllegalArgumentException if it is not a size, or not below 2^63 bytes
     */
    public static long parseBytes(String text) {
        String s = text.strip().toUpperCase(Locale.ROOT);
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
        if (value != 0 && Long.numberOfLeadingZeros(value) <= shift) {
            throw new IllegalArgumentException("size \"" + text + "\" must be below 2^63 bytes");
        }
        return value << shift;
    }

    /**
     * Bytes per second in a rate such as {@code 50M/s}, {@code 50M} or {@code 1048576}.
     *
     * @throws IllegalArgumentException if it is not a rate
     */
    public static long parseBytesPerSecond(String text) {
        String s = text.strip();
        if (s.toLowerCase(Locale.ROOT).endsWith("/s")) {
            s = s.substring(0, s.length() - 2);
        }
        try {
            return parseBytes(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a size per second: \"" + text
                    + "\" (examples: 50M/s, 512K/s, 1048576)");
        }
    }

    /**
     * Nanoseconds in a duration such as {@code 1h30m}, {@code 30s}, {@code 500ms} or {@code 250us}; a plain number
     * counts in units of {@code plainUnitNs} (e.g. {@link #MS} for a knob named {@code *_ms}).
     *
     * @throws IllegalArgumentException if it is not a duration, or not below 2^63 ns (292 years)
     */
    public static long parseNs(String text, long plainUnitNs) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (!s.isEmpty() && s.length() <= 18 && s.chars().allMatch(Character::isDigit)) {
            return times(Long.parseLong(s), plainUnitNs, text);
        }
        Matcher m = PART.matcher(s);
        long ns = 0;
        int at = 0;
        StringBuilder seen = new StringBuilder();
        while (m.find() && m.start() == at) {
            String unit = m.group(2).equals("µs") ? "us" : m.group(2);
            if (seen.indexOf("," + unit + ",") >= 0) {
                at = -1;
                break;
            }
            seen.append(',').append(unit).append(',');
            long part = times(Long.parseLong(m.group(1)), unitNs(unit), text);
            if (part > Long.MAX_VALUE - ns) {
                throw new IllegalArgumentException("duration \"" + text + "\" is too long");
            }
            ns += part;
            at = m.end();
        }
        if (at != s.length() || s.isEmpty()) {
            throw new IllegalArgumentException("not a duration: \"" + text + "\" (examples: 90s, 500ms, 30m, 2h, "
                    + "1h30m)");
        }
        return ns;
    }

    private static long unitNs(String unit) {
        return switch (unit) {
            case "ns" -> 1;
            case "us" -> US;
            case "ms" -> MS;
            case "s" -> SECOND;
            case "m" -> MINUTE;
            case "h" -> HOUR;
            default -> DAY;
        };
    }

    private static long times(long count, long unitNs, String text) {
        try {
            return Math.multiplyExact(count, unitNs);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("duration \"" + text + "\" is too long");
        }
    }
}

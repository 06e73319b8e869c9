package io.blockcache.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations on the command line: {@code 90} (seconds), {@code 45s}, {@code 30m}, {@code 2h}, {@code 1h30m}. */
final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d{1,9})([hms])");
    /** Longest duration accepted: a year, as the admin API allows for a drain deadline. */
    static final long SECONDS_MAX = 365 * 86_400L;

    private Durations() {
    }

    /** Parses a duration into whole seconds; throws with examples on anything else. */
    static long parseSeconds(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        long seconds;
        if (s.chars().allMatch(Character::isDigit) && !s.isEmpty() && s.length() <= 9) {
            seconds = Long.parseLong(s);
        } else {
            Matcher m = PART.matcher(s);
            seconds = 0;
            int at = 0;
            String seen = "";
            while (m.find() && m.start() == at) {
                if (seen.contains(m.group(2))) {
                    at = -1;
                    break;
                }
                seen += m.group(2);
                long unit = switch (m.group(2)) {
                    case "h" -> 3600;
                    case "m" -> 60;
                    default -> 1;
                };
                seconds += Long.parseLong(m.group(1)) * unit;
                at = m.end();
            }
            if (at != s.length() || s.isEmpty()) {
                throw new IllegalArgumentException("not a duration: \"" + text + "\" (examples: 90, 45s, 30m, 2h, "
                        + "1h30m)");
            }
        }
        if (seconds <= 0 || seconds > SECONDS_MAX) {
            throw new IllegalArgumentException("duration \"" + text + "\" must be positive and at most a year");
        }
        return seconds;
    }
}

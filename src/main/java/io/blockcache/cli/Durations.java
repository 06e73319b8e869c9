package io.blockcache.cli;

import io.blockcache.engine.Quantities;

/** Durations on the command line: {@code 90} (seconds), {@code 45s}, {@code 30m}, {@code 2h}, {@code 1h30m}. */
final class Durations {
    /** Longest duration accepted: a year, as the admin API allows for a drain deadline. */
    static final long SECONDS_MAX = 365 * 86_400L;

    private Durations() {
    }

    /** Parses a duration into whole seconds; throws with examples on anything else. */
    static long parseSeconds(String text) {
        // The one duration parser (engine.Quantities); here a plain number is seconds, and only whole seconds do.
        long ns;
        try {
            ns = Quantities.parseNs(text, Quantities.SECOND);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a duration: \"" + text + "\" (examples: 90, 45s, 30m, 2h, "
                    + "1h30m)");
        }
        if (ns % Quantities.SECOND != 0) {
            throw new IllegalArgumentException("duration \"" + text + "\" must be a whole number of seconds");
        }
        long seconds = ns / Quantities.SECOND;
        if (seconds <= 0 || seconds > SECONDS_MAX) {
            throw new IllegalArgumentException("duration \"" + text + "\" must be positive and at most a year");
        }
        return seconds;
    }
}

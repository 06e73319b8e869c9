package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The progress of {@code blockcache drain} on stderr: on a terminal one line rewritten in place; otherwise (a log,
 * a pipe) a line every {@value #LOG_INTERVAL_NS} ns at most, so that logs stay short. Each line says dirty bytes
 * left, bytes written back, the rate measured since the drain began and the ETA at that rate.
 *
 * <p>Thread rule: the command's thread.
 */
final class DrainDisplay {
    /** Between two lines when stderr is not a terminal. */
    static final long LOG_INTERVAL_NS = 5_000_000_000L;

    private final PrintWriter err;
    private final boolean terminal;
    private long lastLineNs = Long.MIN_VALUE;
    private int shownWidth;

    DrainDisplay(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** Shows the drain object of one volume from {@code /api/stats}; {@code elapsedNs} since the command began. */
    void show(String volume, Map<?, ?> drain, long elapsedNs) {
        String line = line(volume, drain);
        if (terminal) {
            err.print("\r" + line + " ".repeat(Math.max(0, shownWidth - line.length())));
            shownWidth = line.length();
        } else if (lastLineNs == Long.MIN_VALUE || elapsedNs - lastLineNs >= LOG_INTERVAL_NS) {
            err.println(line);
            lastLineNs = elapsedNs;
        }
        err.flush();
    }

    /** Ends the rewritten line, if any, so the next output starts on its own line. */
    void clear() {
        if (terminal && shownWidth > 0) {
            err.println();
            err.flush();
            shownWidth = 0;
        }
    }

    /** One progress line. Pure. */
    static String line(String volume, Map<?, ?> drain) {
        double left = number(drain.get("dirtyBytesLeft"));
        double written = number(drain.get("writtenBackBytes"));
        double rate = number(drain.get("bytesPerSecond"));
        long etaMs = (long) number(drain.get("etaMs"));
        return "drain " + volume + ": " + StatsTable.bytes(left) + " left, " + StatsTable.bytes(written)
                + " written back" + (rate > 0 ? " at " + StatsTable.bytes(rate) + "/s" : "")
                + ", ETA " + (etaMs < 0 ? "unknown" : duration(etaMs));
    }

    /** {@code m:ss}, or {@code h:mm:ss} from an hour. */
    static String duration(long ms) {
        long seconds = (ms + 999) / 1000;
        long hours = seconds / 3600;
        return hours > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", hours, seconds / 60 % 60, seconds % 60)
                : String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }
}

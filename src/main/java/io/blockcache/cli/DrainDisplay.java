package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The progress of {@code blockcache drain} on stderr: on a terminal one line rewritten in place; otherwise (a log,
 * a pipe) a line every {@value #LOG_INTERVAL_NS} ns at most, so that logs stay short. Each line has a bar of the
 * share written back, and says dirty bytes left, bytes written back, the rate measured while the drain ran, the ETA
 * at that rate, and the job's cap, deadline and warning when it has them.
 *
 * <p>Thread rule: the command's thread.
 */
final class DrainDisplay {
    /** Between two lines when stderr is not a terminal. */
    static final long LOG_INTERVAL_NS = 5_000_000_000L;
    /** Width of the bar in characters: fine enough to see it move, short enough for an 80-column terminal. */
    static final int BAR_WIDTH = 20;

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
        String state = Boolean.TRUE.equals(drain.get("finishing")) ? "finishing"
                : drain.get("state") == null ? "running" : String.valueOf(drain.get("state"));
        return "drain " + volume + ": " + (state.equals("running") ? "" : state + " ") + bar(written, left) + " "
                + details(drain);
    }

    /**
     * Bytes left and written, rate, ETA, cap, deadline and warning of a drain object; shared with {@code stats}.
     * Pure.
     */
    static String details(Map<?, ?> drain) {
        double left = number(drain.get("dirtyBytesLeft"));
        double written = number(drain.get("writtenBackBytes"));
        double rate = number(drain.get("bytesPerSecond"));
        long etaMs = (long) number(drain.get("etaMs"));
        StringBuilder line = new StringBuilder(StatsTable.bytes(left) + " left, " + StatsTable.bytes(written)
                + " written back" + (rate > 0 ? " at " + StatsTable.bytes(rate) + "/s" : "")
                + ", ETA " + (etaMs < 0 ? "unknown" : duration(etaMs)));
        double cap = number(drain.get("rateMaxBytesPerSecond"));
        if (cap > 0) {
            line.append(", cap ").append(StatsTable.bytes(cap)).append("/s");
        }
        if (drain.get("deadlineInMs") instanceof Number deadlineIn) {
            long ms = deadlineIn.longValue();
            line.append(ms >= 0 ? ", deadline in " + duration(ms) : ", deadline passed " + duration(-ms) + " ago");
        }
        if (Boolean.TRUE.equals(drain.get("restored"))) {
            line.append(", taken up after a restart");
        }
        if (drain.get("deadlineWarning") != null) {
            line.append("; ").append(drain.get("deadlineWarning"));
        }
        return line.toString();
    }

    /** {@code [#####---------------]  25%}: the share of the drain written back. Pure. */
    static String bar(double written, double left) {
        double total = written + left;
        double fraction = total <= 0 ? 1 : written / total;
        int filled = (int) Math.floor(fraction * BAR_WIDTH);
        return "[" + "#".repeat(filled) + "-".repeat(BAR_WIDTH - filled) + "] "
                + String.format(Locale.ROOT, "%3d%%", (int) Math.floor(fraction * 100)) + ",";
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

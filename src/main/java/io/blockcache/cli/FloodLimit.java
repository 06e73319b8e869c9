package io.blockcache.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps a flood of one event from drowning the log: per event name at most {@link #LINES_PER_WINDOW_MAX} lines in a
 * window of {@link #WINDOW_NS}, the rest counted; once the window is over, the count is reported
 * ({@link #due}), or at the end ({@link #all}). Other events are not held back by one that floods.
 *
 * <p>Time comes from the caller (nanoseconds on a clock that only goes forward), so tests drive it by hand.
 * Thread rule: one caller at a time (its {@link EventLog} holds the lock).
 */
final class FloodLimit {
    /** Lines of one event per window: enough to see what goes on, few enough that a flood costs nothing. */
    static final int LINES_PER_WINDOW_MAX = 10;
    /** 10 s windows. */
    static final long WINDOW_NS = 10_000_000_000L;
    /**
     * Event names tracked: the names are constants ({@link io.blockcache.log.EventName}), so this is far above what is
     * used; past it every new name shares one window rather than growing the map.
     */
    static final int NAMES_MAX = 256;
    private static final String OTHER = "log.other";

    /** A count of lines not written. */
    record Suppressed(String event, long lines) {
    }

    private final Map<String, Window> windows = new LinkedHashMap<>();

    /** Whether a line of {@code event} may be written now; if not, it is counted. */
    boolean admit(String event, long nowNs) {
        Window window = windows.get(event);
        if (window == null) {
            String key = windows.size() >= NAMES_MAX ? OTHER : event;
            window = windows.computeIfAbsent(key, name -> new Window(nowNs));
        }
        if (nowNs - window.startNs >= WINDOW_NS && window.suppressed == 0) {
            window.startNs = nowNs;
            window.lines = 0;
        }
        if (window.lines >= LINES_PER_WINDOW_MAX) {
            window.suppressed++;
            return false;
        }
        window.lines++;
        return true;
    }

    /** The counts of windows that are over, each once; their events may write again. */
    List<Suppressed> due(long nowNs) {
        List<Suppressed> due = new ArrayList<>();
        for (Map.Entry<String, Window> entry : windows.entrySet()) {
            Window window = entry.getValue();
            if (window.suppressed > 0 && nowNs - window.startNs >= WINDOW_NS) {
                due.add(new Suppressed(entry.getKey(), window.suppressed));
                window.suppressed = 0;
                window.startNs = nowNs;
                window.lines = 0;
            }
        }
        return due;
    }

    /** Every count not yet reported, each once (at the end of the process). */
    List<Suppressed> all() {
        List<Suppressed> all = new ArrayList<>();
        for (Map.Entry<String, Window> entry : windows.entrySet()) {
            if (entry.getValue().suppressed > 0) {
                all.add(new Suppressed(entry.getKey(), entry.getValue().suppressed));
                entry.getValue().suppressed = 0;
            }
        }
        return all;
    }

    private static final class Window {
        long startNs;
        int lines;
        long suppressed;

        Window(long startNs) {
            this.startNs = startNs;
        }
    }
}

package io.blockcache.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where {@code serve}'s events go: one line each on stderr, in the chosen {@link LogFormat}, with the journal's
 * priority prefix when stderr is the journal ({@link JournalPriority}), each event name held to its share by a
 * {@link FloodLimit}. A flood's count is written as a {@link ServeEvents#LOG_SUPPRESSED} event when its window is
 * over and the next line of any event is written, or at {@link #close}.
 *
 * <p>Why no logging library, and not {@code java.util.logging}: what serve needs is one line per event on stderr, a
 * prefix, JSON through the {@code JsonWriter} it already has and a per-event limit, about 200 lines here. JUL brings
 * a global {@code LogManager} configured by properties files and handlers that add their own format and threads;
 * {@code System.Logger} has no fields; SLF4J with Logback or Log4j 2 would add two dependencies and a
 * configuration file for appenders, MDC and levels per class that serve does not use (docs/OPERATIONS.md "Logs").
 *
 * <p>Thread rule: any thread; lines never interleave (each is written and flushed under the lock).
 */
final class EventLog implements AutoCloseable {
    private final PrintWriter out;
    private final LogFormat format;
    private final JournalPriority journal;
    private final LongSupplier nanoTime;
    private final Supplier<Instant> wallClock;
    private final FloodLimit limit = new FloodLimit();

    /**
     * @param nanoTime a clock that only goes forward, for the flood limit
     * @param wallClock the time written in JSON lines
     */
    EventLog(PrintWriter out, LogFormat format, JournalPriority journal, LongSupplier nanoTime,
             Supplier<Instant> wallClock) {
        this.out = out;
        this.format = format;
        this.journal = journal;
        this.nanoTime = nanoTime;
        this.wallClock = wallClock;
    }

    /** This process's log on {@code err}: its journal, the real clocks. */
    static EventLog of(PrintWriter err, LogFormat format) {
        return new EventLog(err, format, JournalPriority.PROCESS, System::nanoTime, Instant::now);
    }

    /** Writes {@code event}, unless its name has flooded this window. */
    synchronized void log(LogEvent event) {
        long nowNs = nanoTime.getAsLong();
        for (FloodLimit.Suppressed suppressed : limit.due(nowNs)) {
            write(suppressedEvent(suppressed));
        }
        if (limit.admit(event.name(), nowNs)) {
            write(event);
        }
        out.flush();
    }

    void info(String name, String message) {
        log(LogEvent.of(JournalPriority.Level.INFO, name, message));
    }

    void warning(String name, String message) {
        log(LogEvent.of(JournalPriority.Level.WARNING, name, message));
    }

    void error(String name, String message) {
        log(LogEvent.of(JournalPriority.Level.ERROR, name, message));
    }

    /** Writes the counts of every flood not yet reported. */
    @Override
    public synchronized void close() {
        for (FloodLimit.Suppressed suppressed : limit.all()) {
            write(suppressedEvent(suppressed));
        }
        out.flush();
    }

    private static LogEvent suppressedEvent(FloodLimit.Suppressed suppressed) {
        return LogEvent.of(JournalPriority.Level.WARNING, ServeEvents.LOG_SUPPRESSED, "suppressed "
                + suppressed.lines() + " lines of " + suppressed.event() + " (at most "
                + FloodLimit.LINES_PER_WINDOW_MAX
                + " per " + FloodLimit.WINDOW_NS / 1_000_000_000L + " s per event; the counters in /api/stats count"
                + " all)").with("of", suppressed.event()).with("suppressed", suppressed.lines());
    }

    private void write(LogEvent event) {
        out.println(journal.mark(event.level(), format.line(event, wallClock.get())));
    }
}

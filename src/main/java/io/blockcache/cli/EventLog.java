package io.blockcache.cli;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.Level;
import io.blockcache.log.LogEvent;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Where {@code serve}'s events go: one line each on stderr, in the chosen {@link LogFormat}, with the journal's
 * priority prefix when stderr is the journal ({@link JournalPriority}), each event name held to its share by a
 * {@link FloodLimit}.
 *
 * <p>Two ways in. {@link #log} (the {@link EventSink} the other packages get) queues the event and returns: it never
 * blocks, so a loop thread may call it (a drain that ends, a refused NBD request); a full queue
 * ({@link #QUEUE_EVENTS_MAX}) drops the event and counts it ({@link EventName#LOG_DROPPED}). {@link #now} writes on
 * the caller's thread, after everything queued before it: for serve's main thread and shutdown hook, whose lines must
 * be out before the process ends. The writer thread ({@link #start}) writes the queue and, once a second, the counts
 * of floods whose window is over ({@link #tick}), so a {@link EventName#LOG_SUPPRESSED} line comes when the window ends
 * even if nothing else is logged; {@link #close} writes what is left.
 *
 * <p>Why no logging library, and not {@code java.util.logging}: what serve needs is one line per event on stderr, a
 * prefix, JSON through the {@code JsonWriter} it already has and a per-event limit, about 200 lines here. JUL brings
 * a global {@code LogManager} configured by properties files and handlers that add their own format and threads;
 * {@code System.Logger} has no fields; SLF4J with Logback or Log4j 2 would add two dependencies and a
 * configuration file for appenders, MDC and levels per class that serve does not use (docs/OPERATIONS.md "Logs").
 *
 * <p>Thread rule: any thread; lines never interleave (each is written under the lock).
 */
final class EventLog implements EventSink, AutoCloseable {
    /** Events queued and not yet written: far above a second of any non-flooding log, so only a flood fills it. */
    static final int QUEUE_EVENTS_MAX = 4096;
    /** How often the writer thread looks for floods whose window is over, at the latest. */
    static final long TICK_MS = 1_000;

    private final PrintWriter out;
    private final LogFormat format;
    private final JournalPriority journal;
    private final LongSupplier nanoTime;
    private final Supplier<Instant> wallClock;
    private final FloodLimit limit = new FloodLimit();
    private final BlockingQueue<LogEvent> queue = new ArrayBlockingQueue<>(QUEUE_EVENTS_MAX);
    private final AtomicLong dropped = new AtomicLong();
    private Thread writer;
    private volatile boolean closed;

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

    /** This process's log on {@code err}: its journal, the real clocks, its writer thread started. */
    static EventLog of(PrintWriter err, LogFormat format) {
        return new EventLog(err, format, JournalPriority.PROCESS, System::nanoTime, Instant::now).start();
    }

    /** Starts the writer thread (a daemon: it never holds the process up); returns this log. */
    synchronized EventLog start() {
        if (writer == null && !closed) {
            writer = Thread.ofPlatform().name("blockcache-log").daemon().start(this::writeQueued);
        }
        return this;
    }

    /** Queues {@code event}; never blocks. After {@link #close} it is written at once (the writer is gone). */
    @Override
    public void log(LogEvent event) {
        if (closed) {
            now(event);
        } else if (!queue.offer(event)) {
            dropped.incrementAndGet();
        } else if (closed) {
            tick(); // closed meanwhile: its last drain of the queue may have run before this event was in it
        }
    }

    /** Writes {@code event} now, after everything queued before it, unless its name has flooded this window. */
    synchronized void now(LogEvent event) {
        writePending();
        admit(event);
        out.flush();
    }

    /** {@link #now} of {@code message} as {@code name} at its usual level. */
    void now(EventName name, String message) {
        now(LogEvent.of(name, message));
    }

    /** Writes what is queued and the counts of floods whose window is over, and of dropped events. */
    synchronized void tick() {
        writePending();
        out.flush();
    }

    /** Stops the writer thread and writes what is queued and the counts of every flood not yet reported. */
    @Override
    public void close() {
        Thread started;
        synchronized (this) {
            closed = true;
            started = writer;
        }
        if (started != null) {
            started.interrupt();
            try {
                started.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            writePending();
            for (FloodLimit.Suppressed suppressed : limit.all()) {
                write(suppressedEvent(suppressed));
            }
            out.flush();
        }
    }

    private void writeQueued() {
        while (!closed) {
            try {
                LogEvent first = queue.poll(TICK_MS, TimeUnit.MILLISECONDS);
                synchronized (this) {
                    if (first != null) {
                        admit(first);
                    }
                    writePending();
                    out.flush();
                }
            } catch (InterruptedException e) {
                return; // close: it writes what is left
            }
        }
    }

    /** Under the lock: the queue, then the counts that are due. */
    private void writePending() {
        for (LogEvent queued = queue.poll(); queued != null; queued = queue.poll()) {
            admit(queued);
        }
        for (FloodLimit.Suppressed suppressed : limit.due(nanoTime.getAsLong())) {
            write(suppressedEvent(suppressed));
        }
        long lost = dropped.getAndSet(0);
        if (lost > 0) {
            write(LogEvent.of(EventName.LOG_DROPPED, "dropped " + lost + " events: more than " + QUEUE_EVENTS_MAX
                    + " were waiting to be written").with("dropped", lost));
        }
    }

    private void admit(LogEvent event) {
        if (limit.admit(event.name().id(), nanoTime.getAsLong())) {
            write(event);
        }
    }

    private static LogEvent suppressedEvent(FloodLimit.Suppressed suppressed) {
        return LogEvent.of(Level.WARNING, EventName.LOG_SUPPRESSED, "suppressed "
                + suppressed.lines() + " lines of " + suppressed.event() + " (at most "
                + FloodLimit.LINES_PER_WINDOW_MAX
                + " per " + FloodLimit.WINDOW_NS / 1_000_000_000L + " s per event; the counters in /api/stats count"
                + " all)").with("of", suppressed.event()).with("suppressed", suppressed.lines());
    }

    private void write(LogEvent event) {
        out.println(journal.mark(event.level(), format.line(event, wallClock.get())));
    }
}

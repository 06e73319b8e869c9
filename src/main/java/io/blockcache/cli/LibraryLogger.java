package io.blockcache.cli;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * One library logger ({@link LibraryLog}): a WARN becomes a {@code lib.warning} event and an ERROR a {@code lib.error}
 * event, with the logger's name ({@code logger=org.apache.ratis.server.impl.RaftServerImpl}) and, when one is given,
 * the exception's class ({@code exception=java.io.IOException}; its message ends the event's message). INFO, DEBUG and
 * TRACE are off, so a library's chatter costs one boolean test.
 *
 * <p>Floods: the event log holds each name to {@link FloodLimit#LINES_PER_WINDOW_MAX} lines per window and reports the
 * rest as {@code log.suppressed}. Before that, a {@link RateGate} lets at most {@link #EVENTS_PER_SECOND_MAX} library
 * events a second into the event log's queue, so a library logging in a loop cannot fill the queue that every other
 * event shares ({@link EventLog#QUEUE_EVENTS_MAX}); past it they are dropped uncounted.
 *
 * <p>Thread rule: any thread; never blocks (the sink only queues).
 */
final class LibraryLogger extends LegacyAbstractLogger {
    /** Library events a second into the queue: ten times what the flood limit writes in a whole window. */
    static final int EVENTS_PER_SECOND_MAX = 100;
    /** The gate all library loggers share: the bound is on the libraries together. */
    static final RateGate SHARED_LIMIT = new RateGate(EVENTS_PER_SECOND_MAX);
    private static final long serialVersionUID = 1L;

    private final transient Supplier<EventSink> sink;
    private final transient RateGate gate;
    private final transient LongSupplier nanoTime;

    /**
     * @param sink where events go now (read at each call: serve's log is handed over after libraries made loggers)
     * @param nanoTime a clock that only goes forward, for the gate
     */
    LibraryLogger(String name, Supplier<EventSink> sink, RateGate gate, LongSupplier nanoTime) {
        this.name = name;
        this.sink = sink;
        this.gate = gate;
        this.nanoTime = nanoTime;
    }

    @Override
    public boolean isTraceEnabled() {
        return false;
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
        return false;
    }

    @Override
    public boolean isDebugEnabled() {
        return false;
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
        return false;
    }

    @Override
    public boolean isInfoEnabled() {
        return false;
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
        return false;
    }

    /** On once serve's log is there: before, nothing is formatted at all. */
    @Override
    public boolean isWarnEnabled() {
        return sink.get() != EventSink.NONE;
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
        return isWarnEnabled();
    }

    @Override
    public boolean isErrorEnabled() {
        return isWarnEnabled();
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
        return isWarnEnabled();
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null; // no caller data is kept
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                               Throwable throwable) {
        EventName name = switch (level) {
            case ERROR -> EventName.LIB_ERROR;
            case WARN -> EventName.LIB_WARNING;
            default -> null; // INFO and below are off (AbstractLogger asks is*Enabled first)
        };
        EventSink target = sink.get();
        if (name == null || target == EventSink.NONE || !gate.admit(nanoTime.getAsLong())) {
            return;
        }
        String message = MessageFormatter.basicArrayFormat(pattern, arguments);
        LogEvent event = LogEvent.of(name, getName() + ": " + message
                + (throwable == null ? "" : ": " + throwable)).with("logger", getName());
        target.log(throwable == null ? event : event.with("exception", throwable.getClass().getName()));
    }

    /** At most a number of events per second, over all threads. Thread rule: any thread; the lock is brief. */
    static final class RateGate {
        private static final long SECOND_NS = 1_000_000_000L;
        private final int eventsPerSecondMax;
        private long windowStartNs;
        private int events;
        private boolean started;

        RateGate(int eventsPerSecondMax) {
            this.eventsPerSecondMax = eventsPerSecondMax;
        }

        /** Whether one more event may pass at {@code nowNs}; counts it if so. */
        synchronized boolean admit(long nowNs) {
            if (!started || nowNs - windowStartNs >= SECOND_NS) {
                started = true;
                windowStartNs = nowNs;
                events = 0;
            }
            if (events >= eventsPerSecondMax) {
                return false;
            }
            events++;
            return true;
        }
    }
}

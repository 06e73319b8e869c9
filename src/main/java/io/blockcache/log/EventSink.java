package io.blockcache.log;

import java.util.function.Consumer;

/**
 * Where events go. The implementation of a running {@code serve} ({@code cli.EventLog}) queues the event and
 * returns; a thread of its own writes it.
 *
 * <p>Thread rule: any thread, including a loop thread; {@link #log} never blocks and never throws (an event that
 * finds the queue full is counted and dropped).
 */
@FunctionalInterface
public interface EventSink {
    /** Drops every event: for embedding applications and tests that do not look. */
    EventSink NONE = event -> { };

    /** Hands {@code event} over. */
    void log(LogEvent event);

    /** {@code message} as an event of {@code name} at its usual level, without fields. */
    default void log(EventName name, String message) {
        log(LogEvent.of(name, message));
    }

    /** A sink that hands each event's message to {@code lines} (callers that keep a line-based log). */
    static EventSink lines(Consumer<String> lines) {
        return event -> lines.accept(event.message());
    }
}

package io.blockcache.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One thing {@code serve} tells the operator: a level, a stable event name from {@link ServeEvents} (what scripts
 * and alerts match on; the message's words may change, the name does not), the message for a human, and fields
 * ({@code volume=default}, {@code bytes=…}) in the order given. Immutable.
 *
 * @param level its priority (error, warning, info)
 * @param name its event name, lower case with dots ({@code drain.restored})
 * @param message for a human, without the {@code blockcache serve: } prefix; line breaks become {@code |}
 * @param fields the event's fields in order; values are strings or whole numbers
 */
record LogEvent(JournalPriority.Level level, String name, String message, List<Field> fields) {
    /** One named value of an event. */
    record Field(String key, Object value) {
        Field {
            if (!(value == null || value instanceof String || value instanceof Long || value instanceof Integer)) {
                throw new IllegalArgumentException("a log field is a string or a whole number: " + key);
            }
        }
    }

    LogEvent {
        if (!name.matches("[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+")) {
            throw new IllegalArgumentException("an event name is lower case words joined by dots: " + name);
        }
        message = message.replace("\r\n", " | ").replace('\n', '|').replace('\r', '|'); // one line per event
        fields = List.copyOf(fields);
    }

    /** An event without fields. */
    static LogEvent of(JournalPriority.Level level, String name, String message) {
        return new LogEvent(level, name, message, List.of());
    }

    /** This event with one more field. */
    LogEvent with(String key, Object value) {
        List<Field> more = new ArrayList<>(fields);
        more.add(new Field(key, value));
        return new LogEvent(level, name, message, more);
    }
}

package io.blockcache.log;

import java.util.ArrayList;
import java.util.List;

/**
 * One thing the server tells the operator: a level, a stable {@link EventName} (what scripts and alerts match on; the
 * message's words may change, the name does not), the message for a human, and fields ({@code volume=default},
 * {@code bytes=…}) in the order given. Immutable.
 *
 * @param level its priority: one of its name's {@link EventName#levels()}
 * @param name its event name
 * @param message for a human, without a program prefix; line breaks become {@code |}
 * @param fields the event's fields in order, each one its name declares; values are strings or whole numbers
 */
public record LogEvent(Level level, EventName name, String message, List<Field> fields) {
    /** One named value of an event. */
    public record Field(String key, Object value) {
        public Field {
            if (!(value == null || value instanceof String || value instanceof Long || value instanceof Integer)) {
                throw new IllegalArgumentException("a log field is a string or a whole number: " + key);
            }
        }
    }

    public LogEvent {
        if (!name.levels().contains(level)) {
            throw new IllegalArgumentException(name.id() + " is not logged at " + level.label()
                    + " (EventName lists its levels)");
        }
        for (Field field : fields) {
            if (!name.fields().contains(field.key())) {
                throw new IllegalArgumentException(name.id() + " has no field " + field.key()
                        + " (EventName lists its fields)");
            }
        }
        message = message.replace("\r\n", " | ").replace('\n', '|').replace('\r', '|'); // one line per event
        fields = List.copyOf(fields);
    }

    /** An event of {@code name} at its usual level, without fields. */
    public static LogEvent of(EventName name, String message) {
        return new LogEvent(name.level(), name, message, List.of());
    }

    /** An event of {@code name} at {@code level} (one of its levels), without fields. */
    public static LogEvent of(Level level, EventName name, String message) {
        return new LogEvent(level, name, message, List.of());
    }

    /** This event with one more field (a declared one of its name). */
    public LogEvent with(String key, Object value) {
        List<Field> more = new ArrayList<>(fields);
        more.add(new Field(key, value));
        return new LogEvent(level, name, message, more);
    }
}

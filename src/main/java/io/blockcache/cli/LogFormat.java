package io.blockcache.cli;

import io.blockcache.json.JsonWriter;
import io.blockcache.log.LogEvent;
import java.time.Instant;
import picocli.CommandLine;

/**
 * How {@code serve} writes an event on stderr ({@code --log-format}):
 * <ul>
 *   <li>{@code text}: {@code blockcache serve: MESSAGE [event=NAME level=LEVEL KEY=VALUE ...]}, the message first
 *   for a human, then the fields in logfmt (a value with a space, quote or equals sign in double quotes);</li>
 *   <li>{@code json}: one JSON object a line, {@code {"time":"…Z","level":"info","event":"NAME","message":"…",
 *   KEY: VALUE, ...}}, for a log shipper; numbers stay numbers.</li>
 * </ul>
 * The journal's priority prefix ({@link JournalPriority}) goes in front of either.
 *
 * <p>Thread rule: any thread (stateless).
 */
enum LogFormat {
    TEXT, JSON;

    /** The line of {@code event}, written at {@code time}, without a line break. */
    String line(LogEvent event, Instant time) {
        return this == JSON ? json(event, time) : text(event);
    }

    /** {@code --log-format}'s value: {@code text} or {@code json}. */
    static final class Converter implements CommandLine.ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            return switch (value) {
                case "text" -> TEXT;
                case "json" -> JSON;
                default -> throw new CommandLine.TypeConversionException("not a log format: \"" + value
                        + "\" (text or json)");
            };
        }
    }

    private static String text(LogEvent event) {
        StringBuilder line = new StringBuilder("blockcache serve: ").append(event.message())
                .append(" [event=").append(event.name().id()).append(" level=").append(event.level().label());
        for (LogEvent.Field field : event.fields()) {
            line.append(' ').append(field.key()).append('=').append(logfmt(String.valueOf(field.value())));
        }
        return line.append(']').toString();
    }

    private static String logfmt(String value) {
        if (!value.isEmpty() && value.chars().noneMatch(c -> c <= ' ' || c == '"' || c == '=' || c == ']')) {
            return value;
        }
        return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static String json(LogEvent event, Instant time) {
        JsonWriter json = new JsonWriter().beginObject()
                .field("time", time.toString())
                .field("level", event.level().label())
                .field("event", event.name().id())
                .field("message", event.message());
        for (LogEvent.Field field : event.fields()) {
            if (field.value() instanceof Number number) {
                json.field(field.key(), number.longValue());
            } else {
                json.field(field.key(), (String) field.value());
            }
        }
        return json.endObject().toString();
    }
}

package io.blockcache.cli;

import java.util.List;

/**
 * A minimal JSON writer for command output (one object on one line); the CLI needs no JSON library for
 * that. Keys are written in call order.
 */
final class Json {
    private final StringBuilder text = new StringBuilder();
    private boolean first = true;

    Json() {
        text.append('{');
    }

    Json field(String key, long value) {
        return raw(key, Long.toString(value));
    }

    Json field(String key, boolean value) {
        return raw(key, Boolean.toString(value));
    }

    Json field(String key, String value) {
        return raw(key, value == null ? "null" : quote(value));
    }

    /** A nested object, or null. */
    Json field(String key, Json value) {
        return raw(key, value == null ? "null" : value.toString());
    }

    Json strings(String key, List<String> values) {
        return raw(key, join(values.stream().map(Json::quote).toList()));
    }

    Json longs(String key, List<? extends Number> values) {
        return raw(key, join(values.stream().map(Object::toString).toList()));
    }

    Json objects(String key, List<Json> values) {
        return raw(key, join(values.stream().map(Json::toString).toList()));
    }

    private Json raw(String key, String value) {
        if (!first) {
            text.append(',');
        }
        first = false;
        text.append(quote(key)).append(':').append(value);
        return this;
    }

    private static String join(List<String> values) {
        return "[" + String.join(",", values) + "]";
    }

    /** Escaping lives in one place: the admin API's writer. */
    static String quote(String value) {
        return io.blockcache.admin.JsonWriter.quote(value);
    }

    @Override
    public String toString() {
        return text + "}";
    }
}

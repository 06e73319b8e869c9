package io.blockcache.admin;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Writes a JSON document into a string with Jackson's streaming generator: objects, arrays, names and scalar
 * values, with the commas placed for the caller; NaN and infinities (which JSON cannot hold) as {@code null}. A
 * small fluent face over {@link JsonGenerator} so that the admin API's document code reads as the document.
 *
 * <p>Nesting is bounded by {@link #DEPTH_MAX} (a misuse, not data, could exceed it). Not thread-safe: one
 * writer per document.
 */
public final class JsonWriter {
    /** Deepest nesting a document may have; ours are four levels deep, so 32 only catches bugs. */
    static final int DEPTH_MAX = 32;
    private static final JsonFactory FACTORY = new JsonFactory();

    private final StringWriter out = new StringWriter(1024);
    private final JsonGenerator generator;
    private int depth;

    /** An empty document. */
    public JsonWriter() {
        try {
            generator = FACTORY.createGenerator(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
    }

    /** Opens an object (as a value, or as the member named by the last {@link #name}). */
    public JsonWriter beginObject() {
        open();
        return write(JsonGenerator::writeStartObject);
    }

    /** Closes the innermost object. */
    public JsonWriter endObject() {
        depth--;
        return write(JsonGenerator::writeEndObject);
    }

    /** Opens an array. */
    public JsonWriter beginArray() {
        open();
        return write(JsonGenerator::writeStartArray);
    }

    /** Closes the innermost array. */
    public JsonWriter endArray() {
        depth--;
        return write(JsonGenerator::writeEndArray);
    }

    /** Writes a member name; the next call writes its value. */
    public JsonWriter name(String name) {
        return write(g -> g.writeFieldName(name));
    }

    /** Writes a string value (null writes {@code null}). */
    public JsonWriter value(String value) {
        return write(g -> g.writeString(value));
    }

    /** Writes an integer value. */
    public JsonWriter value(long value) {
        return write(g -> g.writeNumber(value));
    }

    /** Writes a number; NaN and infinities, which JSON cannot hold, are written as {@code null}. */
    public JsonWriter value(double value) {
        return write(g -> {
            if (Double.isFinite(value)) {
                g.writeNumber(value);
            } else {
                g.writeNull();
            }
        });
    }

    /** Writes a boolean value. */
    public JsonWriter value(boolean value) {
        return write(g -> g.writeBoolean(value));
    }

    /** Shorthand for {@code name(name).value(value)}. */
    public JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    /** Shorthand for {@code name(name).value(value)}. */
    public JsonWriter field(String name, long value) {
        return name(name).value(value);
    }

    /** Shorthand for {@code name(name).value(value)}. */
    public JsonWriter field(String name, double value) {
        return name(name).value(value);
    }

    /** Shorthand for {@code name(name).value(value)}. */
    public JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    /** The document; every opened object and array must have been closed. */
    @Override
    public String toString() {
        if (depth != 0 || !generator.getOutputContext().inRoot()) {
            throw new IllegalStateException("JSON document has " + depth + " unclosed levels");
        }
        write(JsonGenerator::flush);
        return out.toString();
    }

    private void open() {
        if (depth == DEPTH_MAX) {
            throw new IllegalStateException("JSON nesting deeper than " + DEPTH_MAX);
        }
        depth++;
    }

    /** One generator call; a misuse (a value where a name belongs, an unbalanced close) is a bug: it throws. */
    private JsonWriter write(GeneratorCall call) {
        try {
            call.on(generator);
        } catch (IOException e) {
            throw new IllegalStateException("malformed JSON document: " + e.getMessage(), e);
        }
        return this;
    }

    /** A call on the generator. */
    @FunctionalInterface
    private interface GeneratorCall {
        void on(JsonGenerator generator) throws IOException;
    }

    /** Appends {@code text} as a JSON string literal: quotes, backslashes and control characters escaped. */
    public static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** {@code text} as a JSON string literal. */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        quote(out, text);
        return out.toString();
    }
}

package io.blockcache.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * Writes a JSON document into a string with Jackson's streaming generator: objects, arrays, names and scalar
 * values, with the commas placed for the caller; NaN and infinities (which JSON cannot hold) as {@code null}. A
 * small fluent face over {@link JsonGenerator} so that document code reads as the document: the admin API's, the
 * command line's, the fuzz's and the benchmarks' output.
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

    /**
     * Writes a number already formatted by the caller ({@code String.format(Locale.ROOT, "%.3f", x)}): for documents
     * whose numbers have a fixed number of decimals (the benchmarks' rows), which Jackson's double output has not.
     *
     * @throws IllegalArgumentException if {@code formatted} is not a JSON number
     */
    public JsonWriter number(String formatted) {
        if (!formatted.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            throw new IllegalArgumentException("not a JSON number: " + formatted);
        }
        return write(g -> g.writeNumber(formatted));
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
}

package io.blockcache.admin;

/**
 * Writes JSON by hand into a string: objects, arrays, names and scalar values, with the commas placed for the
 * caller. Enough for the admin API's documents; no parsing, no reflection, no library.
 *
 * <p>Nesting is bounded by {@link #DEPTH_MAX} (a misuse, not data, could exceed it). Not thread-safe: one
 * writer per document.
 */
public final class JsonWriter {
    /** Deepest nesting a document may have; ours are four levels deep, so 32 only catches bugs. */
    static final int DEPTH_MAX = 32;

    private final StringBuilder out = new StringBuilder(1024);
    /** Per open level: true once it holds a member, so the next one needs a comma. */
    private final boolean[] hasMember = new boolean[DEPTH_MAX + 1];
    private int depth;
    private boolean afterName;

    /** Opens an object (as a value, or as the member named by the last {@link #name}). */
    public JsonWriter beginObject() {
        return open('{');
    }

    /** Closes the innermost object. */
    public JsonWriter endObject() {
        return close('}');
    }

    /** Opens an array. */
    public JsonWriter beginArray() {
        return open('[');
    }

    /** Closes the innermost array. */
    public JsonWriter endArray() {
        return close(']');
    }

    /** Writes a member name; the next call writes its value. */
    public JsonWriter name(String name) {
        separate();
        quote(out, name);
        out.append(':');
        afterName = true;
        return this;
    }

    /** Writes a string value (null writes {@code null}). */
    public JsonWriter value(String value) {
        separate();
        if (value == null) {
            out.append("null");
        } else {
            quote(out, value);
        }
        return this;
    }

    /** Writes an integer value. */
    public JsonWriter value(long value) {
        separate();
        out.append(value);
        return this;
    }

    /** Writes a number; NaN and infinities, which JSON cannot hold, are written as {@code null}. */
    public JsonWriter value(double value) {
        separate();
        out.append(Double.isFinite(value) ? Double.toString(value) : "null");
        return this;
    }

    /** Writes a boolean value. */
    public JsonWriter value(boolean value) {
        separate();
        out.append(value);
        return this;
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
        if (depth != 0) {
            throw new IllegalStateException("JSON document has " + depth + " unclosed levels");
        }
        return out.toString();
    }

    private JsonWriter open(char bracket) {
        separate();
        if (depth == DEPTH_MAX) {
            throw new IllegalStateException("JSON nesting deeper than " + DEPTH_MAX);
        }
        out.append(bracket);
        depth++;
        hasMember[depth] = false;
        return this;
    }

    private JsonWriter close(char bracket) {
        if (depth == 0 || afterName) {
            throw new IllegalStateException("unbalanced JSON: '" + bracket + "' with nothing open or after a name");
        }
        out.append(bracket);
        depth--;
        return this;
    }

    /** Puts a comma before a member or element that is not the first, unless a name was just written. */
    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (hasMember[depth]) {
            out.append(',');
        }
        hasMember[depth] = true;
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

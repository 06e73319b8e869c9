package io.blockcache.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the JSON the admin API sends into plain Java values: objects as insertion-ordered maps, arrays as
 * lists, numbers as {@link Double}, strings, booleans and null. Small on purpose: the CLI only reads our own
 * documents, so there is no streaming and no library.
 *
 * <p>Nesting is bounded by {@link #DEPTH_MAX}; deeper input is refused, so the recursion is bounded.
 */
final class JsonReader {
    /** Deepest nesting accepted; our documents are four levels deep. */
    static final int DEPTH_MAX = 32;

    private final String text;
    private int position;

    private JsonReader(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value that makes up all of {@code text} (surrounding whitespace allowed).
     *
     * @throws IllegalArgumentException saying where the text is not JSON
     */
    static Object parse(String text) {
        JsonReader reader = new JsonReader(text);
        Object value = reader.value(0);
        reader.skipWhitespace();
        if (reader.position != text.length()) {
            throw reader.error("unexpected text after the value");
        }
        return value;
    }

    private Object value(int depth) {
        if (depth > DEPTH_MAX) {
            throw error("nesting deeper than " + DEPTH_MAX);
        }
        skipWhitespace();
        if (position >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(position);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> members = new LinkedHashMap<>();
        position++;
        skipWhitespace();
        if (peek() == '}') {
            position++;
            return members;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("expected a member name");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            members.put(name, value(depth + 1));
            skipWhitespace();
            if (peek() == ',') {
                position++;
            } else {
                expect('}');
                return members;
            }
        }
    }

    private List<Object> array(int depth) {
        List<Object> elements = new ArrayList<>();
        position++;
        skipWhitespace();
        if (peek() == ']') {
            position++;
            return elements;
        }
        while (true) {
            elements.add(value(depth + 1));
            skipWhitespace();
            if (peek() == ',') {
                position++;
            } else {
                expect(']');
                return elements;
            }
        }
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        position++;
        while (true) {
            if (position >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(position++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (position >= text.length()) {
                throw error("unterminated escape");
            }
            char escaped = text.charAt(position++);
            switch (escaped) {
                case '"', '\\', '/' -> out.append(escaped);
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    if (position + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    out.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                    position += 4;
                }
                default -> throw error("unknown escape \\" + escaped);
            }
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, position)) {
            throw error("expected " + word);
        }
        position += word.length();
        return value;
    }

    private Double number() {
        int start = position;
        while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0) {
            position++;
        }
        try {
            return Double.valueOf(text.substring(start, position));
        } catch (NumberFormatException e) {
            position = start;
            throw error("expected a value");
        }
    }

    private char peek() {
        if (position >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(position);
    }

    private void expect(char wanted) {
        if (peek() != wanted) {
            throw error("expected '" + wanted + "'");
        }
        position++;
    }

    private void skipWhitespace() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not valid JSON at character " + position + ": " + what);
    }
}

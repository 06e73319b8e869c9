package io.blockcache.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Parses the JSON the admin API sends into plain Java values (Jackson): objects as insertion-ordered maps, arrays
 * as lists, numbers as {@link Number} ({@code Integer}, {@code Long} or {@code Double}), strings, booleans and
 * null. One value makes up the whole text; nesting is bounded by {@link #DEPTH_MAX}.
 */
final class JsonReader {
    /** Deepest nesting accepted; our documents are four levels deep. */
    static final int DEPTH_MAX = 32;

    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(DEPTH_MAX).build()).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonReader() {
    }

    /**
     * Parses one JSON value that makes up all of {@code text} (surrounding whitespace allowed).
     *
     * @throws IllegalArgumentException saying where the text is not JSON
     */
    static Object parse(String text) {
        try {
            return MAPPER.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            long at = e.getLocation() == null ? -1 : e.getLocation().getCharOffset();
            throw new IllegalArgumentException("not valid JSON at character " + at + ": " + e.getOriginalMessage(),
                    e);
        }
    }
}

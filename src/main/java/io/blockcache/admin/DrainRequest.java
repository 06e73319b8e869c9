package io.blockcache.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The optional limits of {@code POST /api/volumes/{name}/drain}, from the query string
 * ({@code ?rateMaxBytesPerSecond=1048576&deadlineSeconds=3600}) or a flat JSON object in the body
 * ({@code {"rateMaxBytesPerSecond": 1048576, "deadlineSeconds": 3600}}), read with Jackson.
 *
 * @param rateMaxBytesPerSecond the drain's rate cap; 0 = none
 * @param deadlineSeconds time from now by which the drain should be done; 0 = none
 */
record DrainRequest(long rateMaxBytesPerSecond, double deadlineSeconds) {
    static final String RATE_MAX = "rateMaxBytesPerSecond";
    static final String DEADLINE = "deadlineSeconds";
    /** Longest deadline accepted: a year; anything later is a typo, not a plan. */
    static final double DEADLINE_SECONDS_MAX = 365 * 86_400.0;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    DrainRequest {
        if (rateMaxBytesPerSecond < 0) {
            throw new IllegalArgumentException(RATE_MAX + " must be >= 0 (0 = no cap): " + rateMaxBytesPerSecond);
        }
        if (rateMaxBytesPerSecond > 0 && rateMaxBytesPerSecond < 512) {
            throw new IllegalArgumentException(RATE_MAX + " must be at least one sector (512) per second: "
                    + rateMaxBytesPerSecond);
        }
        if (!(deadlineSeconds >= 0 && deadlineSeconds <= DEADLINE_SECONDS_MAX)) {
            throw new IllegalArgumentException(DEADLINE + " must be in (0, " + (long) DEADLINE_SECONDS_MAX
                    + "] (0 = none): " + deadlineSeconds);
        }
    }

    /** True if neither limit was given. */
    boolean none() {
        return rateMaxBytesPerSecond == 0 && deadlineSeconds == 0;
    }

    /**
     * Parses the query string (raw, may be null) and the body (may be empty).
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    static DrainRequest parse(String rawQuery, String body) {
        Map<String, String> values = new LinkedHashMap<>();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                int equals = pair.indexOf('=');
                String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                String text = equals < 0 ? "" : pair.substring(equals + 1);
                values.put(key, URLDecoder.decode(text, StandardCharsets.UTF_8));
            }
        }
        if (body != null && !body.isBlank()) {
            values.putAll(members(body.strip()));
        }
        long rate = 0;
        double deadline = 0;
        for (Map.Entry<String, String> value : values.entrySet()) {
            String text = value.getValue().strip();
            switch (value.getKey()) {
                case RATE_MAX -> rate = text.equals("null") ? 0 : (long) number(RATE_MAX, text);
                case DEADLINE -> deadline = text.equals("null") ? 0 : number(DEADLINE, text);
                default -> throw new IllegalArgumentException("unknown drain parameter \"" + value.getKey()
                        + "\"; known: " + RATE_MAX + ", " + DEADLINE);
            }
        }
        return new DrainRequest(rate, deadline);
    }

    private static Map<String, String> members(String body) {
        JsonNode object;
        try {
            object = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            object = null;
        }
        if (object == null || !object.isObject()) {
            throw new IllegalArgumentException("the body must be a JSON object such as {\"" + RATE_MAX
                    + "\": 1048576, \"" + DEADLINE + "\": 3600}");
        }
        Map<String, String> members = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> member : object.properties()) {
            JsonNode value = member.getValue();
            if (!value.isNumber() && !value.isNull()) {
                throw new IllegalArgumentException("not a \"name\": number member of the drain request: \""
                        + member.getKey() + "\": " + value);
            }
            members.put(member.getKey(), value.isNull() ? "null" : value.asText());
        }
        return members;
    }

    private static double number(String name, String text) {
        try {
            double value = Double.parseDouble(text);
            if (!Double.isFinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number: \"" + text + "\"");
        }
    }
}

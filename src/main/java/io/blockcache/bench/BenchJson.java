package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmarks' JSON lines through the one JSON writer ({@code json.JsonWriter}): numbers measured with a fixed
 * number of decimals, as the result tables in docs/BENCHMARKS.md show them, and null where nothing was measured
 * (NaN, an infinity, a missing value).
 *
 * <p>Thread rule: pure.
 */
final class BenchJson {
    private BenchJson() {
    }

    /** Writes {@code value} with {@code decimals} digits after the point, or null if it is not finite. */
    static JsonWriter decimal(JsonWriter json, String name, double value, int decimals) {
        json.name(name);
        return Double.isFinite(value) ? json.number(String.format(Locale.ROOT, "%." + decimals + "f", value))
                : json.value((String) null);
    }

    /**
     * Writes each field as a member, in the map's order: a Double with three decimals, another number as Java
     * prints it, a Boolean, a String, and null for null.
     */
    static JsonWriter fields(JsonWriter json, Map<String, Object> fields) {
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            Object value = field.getValue();
            if (value instanceof Double number) {
                decimal(json, field.getKey(), number, 3);
            } else if (value instanceof Number number) {
                json.name(field.getKey()).number(number.toString());
            } else if (value instanceof Boolean flag) {
                json.field(field.getKey(), flag);
            } else {
                json.field(field.getKey(), value == null ? null : value.toString());
            }
        }
        return json;
    }
}

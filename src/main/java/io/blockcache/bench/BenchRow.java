package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One result row of a writeback experiment: which experiment and policy, and the measured fields that apply (the
 * experiments name them; a field that does not apply is absent, one that was measured as "did not happen" is null).
 * Numbers are in the unit their name ends with.
 */
final class BenchRow {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    BenchRow(String experiment, String policy) {
        fields.put("experiment", experiment);
        fields.put("policy", policy);
    }

    /** Sets a field (a Number, Boolean, String, or null for "did not happen"); returns this. */
    BenchRow with(String name, Object value) {
        fields.put(name, value);
        return this;
    }

    String experiment() {
        return (String) fields.get("experiment");
    }

    String policy() {
        return (String) fields.get("policy");
    }

    /** The value of a numeric field, NaN when absent or null. */
    double number(String name) {
        Object value = fields.get(name);
        return value instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    Object get(String name) {
        return fields.get(name);
    }

    boolean has(String name) {
        return fields.containsKey(name);
    }

    /** One JSON object on one line; doubles with three decimals, null where not finite. */
    String toJson() {
        return BenchJson.fields(new JsonWriter().beginObject(), fields).endObject().toString();
    }
}

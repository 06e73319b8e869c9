package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One result line of {@code bench gc}: an experiment ({@code gc-latency}, {@code full-cache}) in one mode
 * ({@code sliced}, {@code unsliced}, {@code no-gc}). Fields that do not apply to the experiment are null and
 * left out of the JSON.
 *
 * @param extents extents in the index when the measurement started
 * @param p50Us median front-end latency, µs (during GC for the GC modes; while throttled for full-cache)
 * @param gcDurationMs GC duration from request to completion, ms
 * @param jvmPauseMaxMs longest JVM GC pause in the measuring window, ms (ms granularity of the MXBeans)
 * @param throughputMiBPerSecond front-end throughput, MiB/s (full-cache: steady state, simulated time)
 * @param sortedWriteMiBPerSecond the backing device's bandwidth for LBA-sorted 4 KiB writes, MiB/s
 * @param dirtyEvictions buckets evicted while they held dirty sectors (must be 0)
 */
record GcBenchRow(String experiment, String mode, Long extents, Double p50Us, Double p99Us, Double p999Us,
                  Double maxUs, Double gcDurationMs, Double jvmPauseMaxMs, Double throughputMiBPerSecond,
                  Double sortedWriteMiBPerSecond, Long dirtyEvictions) {

    /** The fields in the documented order, null ones left out. */
    Map<String, Object> fields() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("experiment", experiment);
        fields.put("mode", mode);
        fields.put("extents", extents);
        fields.put("p50Us", p50Us);
        fields.put("p99Us", p99Us);
        fields.put("p999Us", p999Us);
        fields.put("maxUs", maxUs);
        fields.put("gcDurationMs", gcDurationMs);
        fields.put("jvmPauseMaxMs", jvmPauseMaxMs);
        fields.put("throughputMiBPerSecond", throughputMiBPerSecond);
        fields.put("sortedWriteMiBPerSecond", sortedWriteMiBPerSecond);
        fields.put("dirtyEvictions", dirtyEvictions);
        fields.values().removeIf(value -> value == null);
        return fields;
    }

    /** One JSON object on one line; doubles with three decimals. */
    String toJson() {
        return BenchJson.fields(new JsonWriter().beginObject(), fields()).endObject().toString();
    }
}

package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measurement of {@code bench hitratio}: one policy (or the engine) on one trace at one cache size.
 *
 * @param trace the trace's name
 * @param sizePercent the cache size asked, % of the trace's working set (0 when given in bytes)
 * @param capacityBlocks the usable capacity every policy got, 4 KiB blocks (the engine's data buckets less its
 *     checkpoint reserve)
 * @param policy the policy's name; "blockcache" is the engine with read admission on, "blockcache-noadm" without
 * @param requestMissRatio read requests with any block missed ÷ read requests
 * @param byteMissRatio read bytes missed ÷ read bytes
 * @param writeAmplification engine only: cache-device bytes written ÷ client bytes written (NaN otherwise or when
 *     the trace writes nothing)
 * @param cacheWritesPerClientByte engine only: cache-device bytes written ÷ client bytes read and written
 */
record HitRatioRow(String trace, int sizePercent, long capacityBlocks, String policy, double requestMissRatio,
                   double byteMissRatio, double writeAmplification, double cacheWritesPerClientByte) {
    void writeJson(JsonWriter json) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("bench", "hitratio");
        fields.put("trace", trace);
        fields.put("sizePercent", sizePercent);
        fields.put("capacityBlocks", capacityBlocks);
        fields.put("policy", policy);
        json.beginObject();
        BenchJson.fields(json, fields);
        BenchJson.decimal(json, "requestMissRatio", requestMissRatio, 4);
        BenchJson.decimal(json, "byteMissRatio", byteMissRatio, 4);
        BenchJson.decimal(json, "writeAmplification", writeAmplification, 3);
        BenchJson.decimal(json, "cacheWritesPerClientByte", cacheWritesPerClientByte, 3);
        json.endObject();
    }
}

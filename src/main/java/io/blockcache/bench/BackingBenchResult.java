package io.blockcache.bench;

import io.blockcache.json.JsonWriter;

/**
 * One measured cell of {@code bench backing}: one setup under one fio job.
 *
 * @param setup          {@code blockcache}, {@code slow-backing}, {@code nbdkit-cache} or {@code blockcache-s3}
 * @param backing        what the setup caches: {@code disk} (one request at a time, 4 ms each), {@code parallel}
 *                       (every request at once, 4 ms each; see {@link SlowBacking}) or {@code s3proxy}
 * @param workload       {@code randwrite4k} or {@code randread4k}
 * @param iops           completed requests per second
 * @param p99Us          99th percentile completion latency (fio's clat), microseconds
 * @param cleanSeconds   for the write row: seconds from the end of the burst until nothing is dirty and everything
 *                       is flushed to the slow backing (blockcache: a drain; nbdkit's cache filter: one FLUSH; the
 *                       bare backing: one FLUSH); NaN for reads
 * @param survivesKill9  whether acknowledged, flushed writes survive {@code kill -9} of the server in front of the
 *                       slow backing (a property of the design, checked by tests, not measured here)
 * @param aroundMiB      for a blockcache setup: MiB the volume wrote around the cache, straight to the slow backing,
 *                       during this row (its {@code bypassedSectors}); NaN for the others
 */
public record BackingBenchResult(String setup, String backing, String workload, double iops, double p99Us,
                                 double cleanSeconds, boolean survivesKill9, double aroundMiB) {
    /** A row of a setup that is not blockcache (nothing to go around). */
    public BackingBenchResult(String setup, String backing, String workload, double iops, double p99Us,
                              double cleanSeconds, boolean survivesKill9) {
        this(setup, backing, workload, iops, p99Us, cleanSeconds, survivesKill9, Double.NaN);
    }

    /** One JSON object on one line. */
    public String toJsonLine() {
        JsonWriter json = new JsonWriter().beginObject().field("setup", setup).field("backing", backing)
                .field("workload", workload);
        BenchJson.decimal(json, "iops", iops, 1);
        BenchJson.decimal(json, "p99Us", p99Us, 1);
        BenchJson.decimal(json, "cleanSeconds", cleanSeconds, 2).field("survivesKill9", survivesKill9);
        return BenchJson.decimal(json, "aroundMiB", aroundMiB, 1).endObject().toString();
    }
}

package io.blockcache.admin;

import io.blockcache.json.JsonWriter;

/**
 * The JSON of {@code GET /api/info}: what the dashboard's header shows. The version (as in
 * {@code blockcache_build_info}), the server's uptime, a summary of the configuration (the cache device's size, its
 * buckets; each volume's mode, size, writeback policy and order, backing device) and the history's memory.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class ServerInfo {
    private ServerInfo() {
    }

    /**
     * {@code cacheDeviceBytes}: the cache device's size; its buckets are what is left after the superblock.
     * {@code uptimeSeconds}: since the admin server was made (an embedding JVM may have run long before).
     */
    static String render(StatsSnapshot stats, long cacheDeviceBytes, HistoryRecorder recorder, long uptimeSeconds) {
        StatsSnapshot.CacheSnapshot cache = stats.cache();
        JsonWriter json = new JsonWriter().beginObject()
                .field("version", RuntimeMetrics.VERSION)
                .field("javaVersion", Runtime.version().toString())
                .field("uptimeSeconds", uptimeSeconds)
                .name("cache").beginObject()
                .field("sizeBytes", cacheDeviceBytes)
                .field("bucketSizeBytes", cache.bucketSizeBytes())
                .field("buckets", cache.bucketsTotal())
                .endObject();
        json.name("volumes").beginArray();
        for (int i = 0; i < stats.volumes().size(); i++) {
            StatsSnapshot.VolumeSnapshot volume = stats.volumes().get(i);
            json.beginObject()
                    .field("name", volume.name())
                    .field("mode", volume.mode())
                    .field("sizeBytes", volume.sizeBytes())
                    .field("writebackPolicy", volume.writeback().policy())
                    .field("writebackOrder", volume.writeback().order())
                    .field("backing", i < stats.backings().size() ? stats.backings().get(i).name() : null)
                    .endObject();
        }
        json.endArray();
        MetricHistory history = recorder.history();
        json.name("history").beginObject()
                .field("secondsAtOneSecond", MetricHistory.FINE_SLOTS)
                .field("secondsAtOneMinute", MetricHistory.RANGE_SECONDS_MAX)
                .field("memoryBytes", history.memoryBytes())
                .field("memoryBytesMax", MetricHistory.MEMORY_BYTES_MAX)
                .field("series", history.seriesNames().size())
                .field("sampleFailures", recorder.failures())
                .field("lastSampleFailure", recorder.lastFailure())
                .endObject();
        return json.endObject().toString();
    }
}

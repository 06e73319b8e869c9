package io.blockcache.admin;

/**
 * Renders a {@link StatsSnapshot} as the JSON document of {@code GET /api/stats}. Names carry their unit
 * last ({@code dirtyBytes}, {@code p99Us}); sector counts are 512-byte sectors.
 *
 * <p>Writeback and GC are not built yet (issues #5 and #6): their sections are present, holding only
 * {@code "status": "not yet"}, so that clients can rely on the shape.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class StatsJson {
    private StatsJson() {
    }

    /** The whole document. */
    static String render(StatsSnapshot stats) {
        JsonWriter json = new JsonWriter().beginObject();
        json.name("volumes").beginArray();
        for (StatsSnapshot.VolumeSnapshot volume : stats.volumes()) {
            volume(json, volume);
        }
        json.endArray();
        cache(json.name("cache"), stats.cache());
        json.name("backing").beginArray();
        for (StatsSnapshot.DeviceSnapshot device : stats.backings()) {
            device(json, device);
        }
        json.endArray();
        json.name("writeback").beginObject().field("status", "not yet").endObject();
        json.name("gc").beginObject().field("status", "not yet").endObject();
        return json.endObject().toString();
    }

    private static void volume(JsonWriter json, StatsSnapshot.VolumeSnapshot volume) {
        json.beginObject()
                .field("name", volume.name())
                .field("sizeBytes", volume.sizeBytes())
                .field("mode", volume.mode())
                .field("readHitSectors", volume.readHitSectors())
                .field("readMissSectors", volume.readMissSectors())
                .field("hitRatio", volume.hitRatio())
                .field("writeCachedSectors", volume.writeCachedSectors())
                .field("bypassedSectors", volume.writeBypassedSectors())
                .field("fillSectors", volume.fillSectors())
                .field("checksumErrors", volume.checksumErrors())
                .field("dirtyBytes", volume.dirtyBytes())
                .field("cachedBytes", volume.cachedBytes())
                .field("requestsInFlight", volume.requestsInFlight());
        StatsSnapshot.LatencySummary latency = volume.latency();
        json.name("latency").beginObject()
                .field("requests", latency.count())
                .field("p50Us", latency.p50Ns() / 1000.0)
                .field("p99Us", latency.p99Ns() / 1000.0)
                .field("p999Us", latency.p999Ns() / 1000.0)
                .endObject();
        json.endObject();
    }

    private static void cache(JsonWriter json, StatsSnapshot.CacheSnapshot cache) {
        json.beginObject()
                .field("bucketSizeBytes", cache.bucketSizeBytes())
                .name("buckets").beginObject()
                .field("total", cache.bucketsTotal())
                .field("free", cache.bucketsFree())
                .field("open", cache.bucketsOpen())
                .field("sealed", cache.bucketsSealed())
                .field("reusePending", cache.bucketsReusePending())
                .field("journal", cache.bucketsJournal())
                .field("metadata", cache.bucketsMetadata())
                .endObject()
                .field("occupancyPercent", cache.occupancyPercent())
                .name("journal").beginObject()
                .field("durableSequence", cache.journalDurableSequence())
                .field("entriesWritten", cache.journalEntriesWritten())
                .field("bytesWritten", cache.journalBytesWritten())
                .field("ringBucketsInUse", cache.journalRingBucketsInUse())
                .endObject()
                .field("checkpointsWritten", cache.checkpointsWritten());
        device(json.name("device"), cache.device());
        json.endObject();
    }

    private static void device(JsonWriter json, StatsSnapshot.DeviceSnapshot device) {
        json.beginObject()
                .field("name", device.name())
                .field("requestsInFlight", device.requestsInFlight())
                .field("completedReadSectors", device.completedReadSectors())
                .field("completedWriteSectors", device.completedWriteSectors())
                .field("errors", device.errors())
                .endObject();
    }
}

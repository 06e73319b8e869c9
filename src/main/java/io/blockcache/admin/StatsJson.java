package io.blockcache.admin;

import io.blockcache.device.ObjectStoreStats;

/**
 * Renders a {@link StatsSnapshot} as the JSON document of {@code GET /api/stats}. Names carry their unit
 * last ({@code dirtyBytes}, {@code p99Us}, {@code rateSectorsPerSecond}); sector counts are 512-byte sectors.
 * Each volume holds a {@code writeback} object; the top level a {@code gc} object for the whole cache and, when
 * an NBD server runs beside the API, an {@code nbd} object with its connection, timeout and buffer counters.
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
        gc(json.name("gc"), stats.gc());
        if (stats.nbd() != null) {
            nbd(json.name("nbd"), stats.nbd());
        }
        if (!stats.files().isEmpty()) {
            files(json.name("files"), stats.files());
        }
        if (stats.admin() != null) {
            json.name("admin").beginObject()
                    .field("tokenRequired", stats.admin().tokenRequired())
                    .field("unauthorizedRequests", stats.admin().unauthorizedRequests())
                    .field("refusedAddressMax", stats.admin().refusedAddressMax())
                    .field("refusedRequestsMax", stats.admin().refusedRequestsMax())
                    .field("requestTimeouts", stats.admin().requestTimeouts())
                    .endObject();
        }
        return json.endObject().toString();
    }

    /** Each local file: size, allocated bytes, its file system's free space, and holes beyond it (-1: unknown). */
    private static void files(JsonWriter json, java.util.List<io.blockcache.device.FileSpace> files) {
        json.beginArray();
        for (io.blockcache.device.FileSpace file : files) {
            json.beginObject()
                    .field("file", file.label())
                    .field("path", file.path().toString())
                    .field("sizeBytes", file.sizeBytes())
                    .field("allocatedBytes", file.allocatedBytes())
                    .field("fileSystemFreeBytes", file.usableBytes())
                    .field("sparseBeyondFreeBytes", file.sparseBeyondFreeBytes())
                    .endObject();
        }
        json.endArray();
    }

    private static void nbd(JsonWriter json, NbdSnapshot nbd) {
        json.beginObject()
                .field("connectionsOpen", nbd.connectionsOpen())
                .field("connectionsAccepted", nbd.connectionsAccepted())
                .field("refusedConnectionsMax", nbd.refusedConnectionsMax())
                .field("refusedAddressMax", nbd.refusedAddressMax())
                .field("handshakeTimeouts", nbd.handshakeTimeouts())
                .field("idleTimeouts", nbd.idleTimeouts())
                .field("replyStallTimeouts", nbd.replyStallTimeouts())
                .field("protocolErrors", nbd.protocolErrors())
                .field("requestsInFlight", nbd.requestsInFlight())
                .field("bufferBytesMax", nbd.bufferBytesMax())
                .field("bufferBytesInUse", nbd.bufferBytesInUse())
                .field("bufferBytesInUsePeak", nbd.bufferBytesInUsePeak())
                .field("bufferWaits", nbd.bufferWaits())
                .field("allocationFailures", nbd.allocationFailures())
                .field("connectionsOutOfMemory", nbd.connectionsOutOfMemory())
                .field("tlsHandshakes", nbd.tlsHandshakes())
                .field("tlsHandshakeFailures", nbd.tlsHandshakeFailures())
                .field("tlsRequiredRefusals", nbd.tlsRequiredRefusals())
                .field("tlsOffRefusals", nbd.tlsOffRefusals())
                .field("exportRefusalsAddress", nbd.exportRefusalsAddress())
                .field("exportRefusalsPskUser", nbd.exportRefusalsPskUser())
                .endObject();
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
        StatsSnapshot.BypassSnapshot bypass = volume.bypass();
        json.name("bypass").beginObject()
                .field("sequentialSectors", bypass.sequentialSectors())
                .field("congestedSectors", bypass.congestedSectors())
                .field("occupancySectors", bypass.occupancySectors())
                .field("noRoomSectors", bypass.noRoomSectors())
                .field("throttledWrites", bypass.throttledWrites())
                .field("throttleDelayMsTotal", bypass.throttleDelayNsTotal() / 1e6)
                .field("throttleDelayMsMax", bypass.throttleDelayNsMax() / 1e6)
                .field("inUsePercent", bypass.inUsePercent())
                .field("dirtyDataPercent", bypass.dirtyDataPercent())
                .field("cacheReadLatencyUs", bypass.cacheReadLatencyNs() / 1e3)
                .field("cacheWriteLatencyUs", bypass.cacheWriteLatencyNs() / 1e3)
                .endObject();
        writeback(json.name("writeback"), volume.writeback());
        StatsSnapshot.DamageMapSnapshot map = volume.damageMap();
        if (map != null) { // absent when the volume has no damage map
            json.name("damageMap").beginObject()
                    .field("regionsMarked", map.regionsMarked())
                    .field("regionsCleared", map.regionsCleared())
                    .field("markWaits", map.markWaits())
                    .field("writesCovered", map.writesCovered())
                    .field("blockWrites", map.blockWrites())
                    .field("blockWriteErrors", map.blockWriteErrors())
                    .field("sweeps", map.sweeps())
                    .name("consistentAsOfEpoch");
            if (map.consistentAsOfEpoch() < 0) {
                json.value((String) null);
            } else {
                json.value(map.consistentAsOfEpoch());
            }
            json.endObject();
        }
        json.endObject();
    }

    private static void writeback(JsonWriter json, WritebackSnapshot writeback) {
        WritebackSnapshot.Rate rate = writeback.rate();
        DrainSnapshot drain = writeback.drain();
        json.beginObject()
                .field("running", writeback.running())
                .field("policy", writeback.policy())
                .field("order", writeback.order())
                .field("state", writeback.frontEndIdle() ? "idle" : "busy")
                .field("dirtyBytes", writeback.dirtyBytes())
                .field("writtenBackSectors", writeback.writtenBackSectors())
                .field("backingWriteSectors", writeback.backingWriteSectors())
                .field("passes", writeback.passes())
                .field("keysInFlight", writeback.keysInFlight())
                .field("keysInFlightPeak", writeback.keysInFlightPeak())
                .field("backingWritesInFlight", writeback.backingWritesInFlight())
                .field("backingQueueDepth", writeback.backingQueueDepth())
                .field("measuredBackingBytesPerSecond", writeback.measuredBackingBytesPerSecond())
                .field("rateSectorsPerSecond", rate.rateSectorsPerSecond())
                .name("rate").beginObject()
                .field("targetSectors", rate.targetSectors())
                .field("errorSectors", rate.errorSectors())
                .field("proportionalSectorsPerSecond", rate.proportionalSectorsPerSecond())
                .field("integralSectorsPerSecond", rate.integralSectorsPerSecond())
                .field("changeSectorsPerSecond", rate.changeSectorsPerSecond())
                .field("rateSectorsPerSecond", rate.rateSectorsPerSecond())
                .field("fragmentBoostSectorsPerSecond", rate.fragmentBoostSectorsPerSecond())
                .field("integralFrozen", rate.integralFrozen())
                .endObject()
                .name("errors").beginObject()
                .field("total", writeback.errors())
                .field("cacheRead", writeback.readErrors())
                .field("checksum", writeback.checksumErrors())
                .field("backingWrite", writeback.writeErrors())
                .field("backingFlush", writeback.flushErrors())
                .field("last", writeback.lastError())
                .field("backingFailure", writeback.backingFailure())
                .endObject()
                .field("degraded", writeback.degraded())
                .name("epochs").beginObject()
                .field("ordering", writeback.epochs().ordering())
                .field("current", writeback.epochs().current())
                .name("oldestDirty");
        Long oldestDirty = writeback.epochs().oldestDirty();
        if (oldestDirty == null) {
            json.value((String) null);
        } else {
            json.value(oldestDirty.longValue());
        }
        json.field("dirtyEpochs", writeback.epochs().dirtyEpochs())
                .field("requestsWaiting", writeback.epochs().requestsWaiting())
                .field("waitsTotal", writeback.epochs().waitsTotal())
                .field("orderHeld", writeback.epochs().orderHeld())
                .field("backingLog", writeback.epochs().backingLog())
                .field("logGroups", writeback.epochs().logGroups())
                .endObject()
                .name("drain").beginObject();
        drainFields(json, drain);
        json.endObject().endObject();
    }

    /**
     * The members of a drain object (in {@code writeback.drain} of the stats, and {@code GET
     * /api/volumes/{name}/drain}); the first seven are the ones from before drain jobs, in their old order.
     */
    static void drainFields(JsonWriter json, DrainSnapshot drain) {
        json.field("id", drain.id())
                .field("state", drain.state())
                .field("dirtyBytesLeft", drain.dirtyBytesLeft())
                .field("writtenBackBytes", drain.writtenBackBytes())
                .field("bytesPerSecond", drain.bytesPerSecond())
                .field("etaMs", drain.etaMs())
                .field("error", drain.error())
                .field("rateMaxBytesPerSecond", drain.rateMaxBytesPerSecond())
                .field("rateCeilingBytesPerSecond", drain.rateCeilingBytesPerSecond())
                .name("deadlineEpochMs");
        if (drain.deadlineEpochMs() == 0) {
            json.value((String) null).name("deadlineInMs").value((String) null);
        } else {
            json.value(drain.deadlineEpochMs()).name("deadlineInMs").value(drain.deadlineInMs());
        }
        json.field("neededBytesPerSecond", drain.neededBytesPerSecond())
                .field("deadlineWarning", drain.deadlineWarning())
                .field("restored", drain.restored())
                .field("finishing", drain.finishing());
    }

    private static void gc(JsonWriter json, GcSnapshot gc) {
        GcSnapshot.Buckets buckets = gc.buckets();
        json.beginObject()
                .field("running", gc.running())
                .field("runs", gc.runs())
                .field("averageDurationMs", gc.durationNsAverage() / 1e6)
                .field("maxDurationMs", gc.durationNsMax() / 1e6)
                .field("averageIntervalMs", gc.intervalNsAverage() / 1e6)
                .name("sinceLastMs");
        if (gc.sinceLastNs() < 0) {
            json.value((String) null);
        } else {
            json.value(gc.sinceLastNs() / 1e6);
        }
        json.name("buckets").beginObject()
                .field("free", buckets.free())
                .field("reusePending", buckets.reusePending())
                .field("open", buckets.open())
                .field("clean", buckets.clean())
                .field("dirty", buckets.dirty())
                .field("emptyWaiting", buckets.emptyWaiting())
                .field("metadata", buckets.metadata())
                .field("journal", buckets.journal())
                .endObject()
                .field("bucketsEvicted", gc.bucketsEvicted())
                .field("movedBytes", gc.movedBytes())
                .field("compactedBuckets", gc.compactedBuckets())
                .field("staleKeysDropped", gc.staleKeysDropped())
                .field("moveChecksumFailures", gc.moveChecksumFailures())
                .field("allocationWaits", gc.allocationWaits())
                .endObject();
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
                .field("changed", device.changed());
        StatsSnapshot.RemoteSnapshot remote = device.remote();
        if (remote != null) {
            json.name("remote").beginObject()
                    .field("connected", remote.connected())
                    .field("state", remote.state())
                    .field("breaks", remote.breaks())
                    .field("reconnects", remote.reconnects())
                    .field("replayLogBytes", remote.replayLogBytes())
                    .field("requestTimeouts", remote.requestTimeouts())
                    .endObject();
        }
        ObjectStoreStats s3 = device.objectStore();
        if (s3 != null) {
            json.name("s3").beginObject()
                    .field("puts", s3.puts())
                    .field("gets", s3.gets())
                    .field("deletes", s3.deletes())
                    .field("failures", s3.failures())
                    .field("retries", s3.retries())
                    .field("bytesPut", s3.bytesPut())
                    .field("bytesGot", s3.bytesGot())
                    .field("stagedChunks", s3.stagedChunks())
                    .field("stagedChunksMax", s3.stagedChunksMax())
                    .field("leaseRenewals", s3.leaseRenewals())
                    .field("leaseRenewalFailures", s3.leaseRenewalFailures())
                    .field("fenced", s3.fenced())
                    .field("ownership", s3.ownership())
                    .endObject();
        }
        json.endObject();
    }
}

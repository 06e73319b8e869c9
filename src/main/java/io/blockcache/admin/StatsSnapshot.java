package io.blockcache.admin;

import io.blockcache.device.DurationHistogram;
import io.blockcache.device.FileSpace;
import io.blockcache.device.ObjectStoreStats;

import java.util.List;

/**
 * The numbers of one cache set at one moment, copied on the loop thread by {@link StatsCollector} so that
 * JSON and Prometheus text can be rendered on any thread without touching engine objects. Immutable.
 *
 * @param volumes one entry per volume, in the superblock's order
 * @param cache the cache device's bucket space, journal and checkpoints
 * @param backings one entry per backing device, in volume order
 * @param gc garbage collection of the cache
 * @param nbd the NBD server's counters, or null where no NBD server runs beside the admin API
 * @param admin the admin API's own counters (bearer-token refusals), or null where not known
 * @param files the local cache and backing files and the free space of their file systems (empty where not known)
 */
public record StatsSnapshot(List<VolumeSnapshot> volumes, CacheSnapshot cache, List<DeviceSnapshot> backings,
                            GcSnapshot gc, NbdSnapshot nbd, AdminSnapshot admin, List<FileSpace> files) {
    public StatsSnapshot {
        volumes = List.copyOf(volumes);
        backings = List.copyOf(backings);
        files = List.copyOf(files);
    }

    /** A snapshot without the files' space. */
    public StatsSnapshot(List<VolumeSnapshot> volumes, CacheSnapshot cache, List<DeviceSnapshot> backings,
                         GcSnapshot gc, NbdSnapshot nbd, AdminSnapshot admin) {
        this(volumes, cache, backings, gc, nbd, admin, List.of());
    }

    /** A snapshot without the NBD server's or the admin API's counters. */
    public StatsSnapshot(List<VolumeSnapshot> volumes, CacheSnapshot cache, List<DeviceSnapshot> backings,
                         GcSnapshot gc, NbdSnapshot nbd) {
        this(volumes, cache, backings, gc, nbd, null);
    }

    /** This snapshot with the NBD server's counters (null: none). */
    public StatsSnapshot withNbd(NbdSnapshot counters) {
        return new StatsSnapshot(volumes, cache, backings, gc, counters, admin, files);
    }

    /** This snapshot with the admin API's counters (null: none). */
    public StatsSnapshot withAdmin(AdminSnapshot counters) {
        return new StatsSnapshot(volumes, cache, backings, gc, nbd, counters, files);
    }

    /** This snapshot with the files' space. */
    public StatsSnapshot withFiles(List<FileSpace> measured) {
        return new StatsSnapshot(volumes, cache, backings, gc, nbd, admin, measured);
    }

    /**
     * The admin API's own counters since it started.
     *
     * @param tokenRequired true if requests need a bearer token ({@code --admin-token-file})
     * @param unauthorizedRequests requests answered 401 for a missing or wrong token
     * @param refusedAddressMax requests answered 429: their address had {@link AdminLimits#requestsPerAddressMax}
     *     in progress
     * @param refusedRequestsMax requests whose connection was closed at once: {@link AdminLimits#requestsMax} were
     *     in progress
     * @param requestTimeouts requests cut off (408 or a closed connection) for arriving slower than
     *     {@link AdminLimits#requestReadTime} or not being answered within {@link AdminLimits#answerTime}
     */
    public record AdminSnapshot(boolean tokenRequired, long unauthorizedRequests, long refusedAddressMax,
                                long refusedRequestsMax, long requestTimeouts) {
    }

    /**
     * One volume's front end. Sector counts are in 512-byte sectors since the cache set was opened.
     *
     * @param requestsInFlight front-end requests submitted and not yet answered
     * @param writeback the volume's writeback engine
     * @param damageMap the volume's damage map counters, or null when it has no map
     * @param bypass why writes went around the cache, and how long the throttle held writes
     * @param latencyByOp front-end latency per operation since open, indexed by {@code DeviceOp.ordinal()} (read,
     *     write, flush, discard: trim)
     * @param health whether the volume can do its job, derived from the other parts ({@link VolumeHealth})
     * @param admission what read admission let into the cache, kept out, and promoted (docs/CACHING.md)
     */
    public record VolumeSnapshot(String name, long sizeBytes, String mode, long readHitSectors, long readMissSectors,
                                 long writeCachedSectors, long writeBypassedSectors, long fillSectors,
                                 long checksumErrors, long dirtyBytes, long cachedBytes, long requestsInFlight,
                                 LatencySummary latency, WritebackSnapshot writeback, DamageMapSnapshot damageMap,
                                 BypassSnapshot bypass, List<DurationHistogram.Counts> latencyByOp,
                                 VolumeHealth health, AdmissionSnapshot admission) {
        public VolumeSnapshot {
            latencyByOp = List.copyOf(latencyByOp);
        }

        /** Read hits over all read sectors, in [0, 1]; 0 before the first read. */
        public double hitRatio() {
            long total = readHitSectors + readMissSectors;
            return total == 0 ? 0.0 : (double) readHitSectors / total;
        }
    }

    /**
     * One volume's read admission since open (docs/CACHING.md).
     *
     * @param admittedSectors read-miss sectors admission let fill the cache
     * @param rejectedSectors read-miss sectors it kept out (their blocks were not read often enough)
     * @param promotedSectors clean read-hit sectors rewritten from an old bucket into the newest
     * @param memoryBytes the bytes its sketch and ring of recent fills hold
     * @param pinnedBytes the bytes of its pinned ranges (docs/CACHING.md "Pinning"), cached or not
     */
    public record AdmissionSnapshot(long admittedSectors, long rejectedSectors, long promotedSectors,
                                    long memoryBytes, long pinnedBytes) {
    }

    /**
     * Why one volume's writes went around the cache, and the throttle, since open (docs/GC.md "Bypass decisions").
     * The bypass policy's reasons count write-back and write-through writes (a write-through write it bypasses keeps
     * no clean copy); no-room counts cache-bound writes that found no free bucket and went around.
     *
     * @param sequentialSectors sectors of streams past the sequential cutoff
     * @param congestedSectors sectors sent around while the cache device was congested
     * @param occupancySectors sectors sent around by the occupancy cutoffs
     * @param noRoomSectors sectors that were to be cached but found no free bucket
     * @param throttledWrites write-back writes the throttle held
     * @param throttleDelayNsTotal how long the throttle held them in all, nanoseconds
     * @param throttleDelayNsMax the longest it held one, nanoseconds
     * @param inUsePercent the cache's data buckets in use (holding dirty data) as the occupancy cutoffs see it now
     * @param dirtyDataPercent the cache's dirty data over its data capacity as the throttle sees it now
     * @param cacheReadLatencyNs the recent average cache-device read latency the congestion check compares with its
     *     threshold (0 if none is known)
     * @param cacheWriteLatencyNs the same for writes
     */
    public record BypassSnapshot(long sequentialSectors, long congestedSectors, long occupancySectors,
                                 long noRoomSectors, long throttledWrites, long throttleDelayNsTotal,
                                 long throttleDelayNsMax, double inUsePercent, double dirtyDataPercent,
                                 long cacheReadLatencyNs,
                                 long cacheWriteLatencyNs) {
    }

    /**
     * One volume's damage map since open (docs/WRITEBACK.md "The damage map"; {@code volume.DamageMapStats}).
     *
     * @param regionsMarked regions newly marked by front-end writes
     * @param regionsCleared regions cleared by sweeps
     * @param markWaits front-end writes that waited for a map write before their acknowledgement
     * @param writesCovered front-end writes whose regions were already marked (no map write)
     * @param blockWrites map block writes (FUA), to the backing device or the map file
     * @param blockWriteErrors map block writes that failed
     * @param sweeps sweeps run
     * @param consistentAsOfEpoch the flush epoch the map's writes now say the backing device is consistent as of
     *     ({@code check --damage} after a cache loss), or -1 while they say no such thing
     */
    public record DamageMapSnapshot(long regionsMarked, long regionsCleared, long markWaits, long writesCovered,
                                    long blockWrites, long blockWriteErrors, long sweeps, long consistentAsOfEpoch) {
    }

    /**
     * Front-end latency of every request since open, from the volume's histogram.
     *
     * @param count requests measured
     * @param sumNs their total latency in nanoseconds (from the histogram's mean, so within its resolution)
     */
    public record LatencySummary(long count, long p50Ns, long p99Ns, long p999Ns, double sumNs) {
    }

    /**
     * The cache device: buckets by state, the journal and checkpoints.
     *
     * @param bucketsCheckpointReserve free buckets kept for checkpoints, which data may not take; grows with the
     *     extents in the index (docs/GC.md "Checkpoint reserve")
     * @param journalDurableSequence sequence of the newest durable journal entry
     * @param journalEntriesWritten journal entries written since open
     * @param journalBytesWritten bytes of journal entries written since open
     * @param journalRingBucketsInUse ring buckets holding entries that replay still needs
     * @param cleanCoverRounds backing flushes that covered clean copies since open (docs/FORMAT.md §7 rule 10)
     */
    public record CacheSnapshot(int bucketSizeBytes, int bucketsTotal, int bucketsFree, int bucketsOpen,
                                int bucketsSealed, int bucketsReusePending, int bucketsJournal, int bucketsMetadata,
                                int bucketsCheckpointReserve, long journalDurableSequence, long journalEntriesWritten,
                                long journalBytesWritten, int journalRingBucketsInUse, long checkpointsWritten,
                                long cleanCoverRounds, DeviceSnapshot device) {
        /**
         * Buckets in use over the buckets that can hold data or checkpoints (all but the journal ring), in
         * percent [0, 100].
         */
        public double occupancyPercent() {
            int usable = bucketsTotal - bucketsJournal;
            return usable <= 0 ? 0.0 : 100.0 * (usable - bucketsFree) / usable;
        }
    }

    /**
     * One device as the engine sees it through its counters.
     *
     * @param requestsInFlight requests submitted to the device and not yet completed (its queue depth)
     * @param completedReadSectors sectors read successfully since open
     * @param completedWriteSectors sectors written successfully since open
     * @param errors requests of any kind that completed with an error
     * @param remote the client's state for a remote backing (an {@code nbd://} export); null for other devices
     * @param objectStore the counters of an {@code s3://} backing; null for other devices
     * @param changed what changed under the device's file while open (deleted, replaced, truncated:
     *     {@code device.FileWatch}), or null; docs/OPERATIONS.md "A device vanished"
     */
    public record DeviceSnapshot(String name, long requestsInFlight, long completedReadSectors,
                                 long completedWriteSectors, long errors, RemoteSnapshot remote,
                                 ObjectStoreStats objectStore, String changed) {
    }

    /**
     * A remote backing's client ({@code device.RemoteDevice}).
     *
     * @param connected whether it is connected now (false: the server is away and it is reconnecting)
     * @param state the same in words, with the reason while away
     * @param breaks times the connection broke
     * @param reconnects times it reconnected after a break
     * @param replayLogBytes acknowledged writes no acknowledged flush covers yet (written again on reconnect)
     * @param requestTimeouts requests that waited longer than the request timeout (each broke its connection)
     */
    public record RemoteSnapshot(boolean connected, String state, long breaks, long reconnects,
                                 long replayLogBytes, long requestTimeouts) {
    }
}

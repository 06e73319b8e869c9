package io.blockcache.volume;

import static io.blockcache.loop.Checks.require;

/**
 * The bypass and throttling settings of one volume (docs/GC.md), validated here once;
 * defaults and their sources in {@link #defaults()}. Immutable: a live knob builds a new one.
 *
 * @param sequentialCutoffBytes a stream whose sequential run reaches this many bytes goes around the cache
 *     (writes) or is not filled into it (reads); 0 switches sequential bypass off
 * @param congestedReadThresholdNs the cache device counts as congested while its recent read latency is above
 *     this; 0 switches the read threshold off
 * @param congestedWriteThresholdNs the same for cache-device writes; 0 switches it off
 * @param cutoffWritebackPercent below or at this cache occupancy (see {@link OccupancyGauge}) every write-back
 *     write is cached
 * @param cutoffWritebackSyncPercent up to this occupancy only FUA writes are cached; above it none is (writes
 *     over dirty data always are)
 * @param throttleStartPercent above this share of the cache in dirty data (not buckets in use: see
 *     {@link OccupancyGauge}) new write-back writes are paced, harder as it nears {@code cutoffWritebackSyncPercent};
 *     100 switches throttling off
 * @param throttleDelayNsMax the longest a write is ever held by the throttle
 */
public record BypassSettings(long sequentialCutoffBytes, long congestedReadThresholdNs, long congestedWriteThresholdNs,
                             int cutoffWritebackPercent, int cutoffWritebackSyncPercent, int throttleStartPercent,
                             long throttleDelayNsMax) {
    private static final long MS = 1_000_000L;

    public BypassSettings {
        require(sequentialCutoffBytes >= 0 && sequentialCutoffBytes % 512 == 0,
                "sequentialCutoffBytes must be a non-negative multiple of 512: %s", sequentialCutoffBytes);
        require(congestedReadThresholdNs >= 0 && congestedReadThresholdNs <= 10_000 * MS,
                "congestedReadThresholdNs in [0, 10 s]: %s", congestedReadThresholdNs);
        require(congestedWriteThresholdNs >= 0 && congestedWriteThresholdNs <= 10_000 * MS,
                "congestedWriteThresholdNs in [0, 10 s]: %s", congestedWriteThresholdNs);
        require(cutoffWritebackPercent >= 0 && cutoffWritebackPercent <= 100,
                "cutoffWritebackPercent in [0, 100]: %s", cutoffWritebackPercent);
        require(cutoffWritebackSyncPercent >= cutoffWritebackPercent && cutoffWritebackSyncPercent <= 100,
                "cutoffWritebackSyncPercent in [cutoffWritebackPercent, 100]: %s", cutoffWritebackSyncPercent);
        require(throttleStartPercent >= 0 && throttleStartPercent <= 100, "throttleStartPercent in [0, 100]: %s",
                throttleStartPercent);
        require(throttleDelayNsMax >= 0 && throttleDelayNsMax <= 1_000 * MS, "throttleDelayNsMax in [0, 1 s]: %s",
                throttleDelayNsMax);
    }

    /**
     * Defaults: a 4 MiB sequential cutoff (bcache: sequential_cutoff); congestion above 2 ms read / 20 ms write
     * (bcache: congested_read_threshold_us 2000, congested_write_threshold_us 20000); occupancy cutoffs of 40 % and
     * 70 % (bcache: CUTOFF_WRITEBACK, CUTOFF_WRITEBACK_SYNC); throttling from 30 % (ours: three times the default
     * writeback target of 10 %, below the 40 % cutoff so that writers slow down before caching stops) with at
     * most 100 ms per write (ours: a front end sees latency, never a stall a timeout could fire on).
     */
    public static BypassSettings defaults() {
        return new BypassSettings(4L << 20, 2 * MS, 20 * MS, 40, 70, 30, 100 * MS);
    }

    /** Every bypass and the throttle off: each write is cached as before this policy existed. */
    public static BypassSettings off() {
        return new BypassSettings(0, 0, 0, 100, 100, 100, 0);
    }

    /** A copy with another sequential cutoff. */
    public BypassSettings withSequentialCutoffBytes(long bytes) {
        return new BypassSettings(bytes, congestedReadThresholdNs, congestedWriteThresholdNs, cutoffWritebackPercent,
                cutoffWritebackSyncPercent, throttleStartPercent, throttleDelayNsMax);
    }

    /** A copy with other congestion thresholds. */
    public BypassSettings withCongestedThresholdsNs(long readNs, long writeNs) {
        return new BypassSettings(sequentialCutoffBytes, readNs, writeNs, cutoffWritebackPercent,
                cutoffWritebackSyncPercent, throttleStartPercent, throttleDelayNsMax);
    }

    /** A copy with other occupancy cutoffs. */
    public BypassSettings withCutoffsPercent(int writeback, int writebackSync) {
        return new BypassSettings(sequentialCutoffBytes, congestedReadThresholdNs, congestedWriteThresholdNs, writeback,
                writebackSync, throttleStartPercent, throttleDelayNsMax);
    }

    /** A copy with other throttle settings. */
    public BypassSettings withThrottle(int startPercent, long delayNsMax) {
        return new BypassSettings(sequentialCutoffBytes, congestedReadThresholdNs, congestedWriteThresholdNs,
                cutoffWritebackPercent, cutoffWritebackSyncPercent, startPercent, delayNsMax);
    }
}

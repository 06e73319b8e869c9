package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.EventLoop;
import java.util.Objects;

/**
 * The bypass decisions of one volume (docs/GC.md), made once per request at submission:
 * sequential streams past the cutoff, a congested cache device, and the occupancy cutoffs; and the throttle's
 * pressure. Each says only what a request <em>would</em> do: the volume still caches every write that overlaps
 * dirty data, whatever the policy says (docs/ARCHITECTURE.md §1.2 items 3 and 5), and a bypassed write invalidates what
 * it overlaps.
 *
 * <p>Order of the checks: the stream table is updated first for every request (so streams are tracked whether
 * or not they end up bypassed), then sequential, congestion, occupancy; the first that applies is the reason.
 *
 * <p>Thread rule: the loop thread.
 */
final class BypassPolicy {
    private final EventLoop loop;
    private final SequentialStreams streams = new SequentialStreams();
    private final CongestionMonitor congestion = new CongestionMonitor();
    private final OccupancyGauge occupancy;
    private final BackingRateMeter backingRate;
    private volatile BypassSettings settings = BypassSettings.defaults();

    BypassPolicy(EventLoop loop, OccupancyGauge occupancy, BackingRateMeter backingRate) {
        this.loop = loop;
        this.occupancy = occupancy;
        this.backingRate = backingRate;
    }

    BypassSettings settings() {
        return settings;
    }

    void setSettings(BypassSettings newSettings) {
        settings = Objects.requireNonNull(newSettings, "settings");
    }

    /** What the cache-device probe feeds. */
    CongestionMonitor congestion() {
        return congestion;
    }

    /**
     * Whether a write would go around the cache, and why. {@code cachedMode} is true in write-back mode, the
     * only mode in which the occupancy cutoffs apply (they bound dirty data).
     */
    BypassReason forWrite(long startSector, int lengthSectors, boolean fua, boolean writebackMode) {
        long nowNs = loop.nowNs();
        BypassSettings s = settings;
        BypassReason common = common(startSector, lengthSectors, nowNs, s);
        if (common != BypassReason.NONE || !writebackMode) {
            return common;
        }
        double inUse = occupancy.inUsePercent(nowNs);
        // bcache should_writeback(): every write up to CUTOFF_WRITEBACK, sync ones up to CUTOFF_WRITEBACK_SYNC.
        if (inUse <= s.cutoffWritebackPercent() || (fua && inUse <= s.cutoffWritebackSyncPercent())) {
            return BypassReason.NONE;
        }
        return BypassReason.OCCUPANCY;
    }

    /** Whether a read's misses would not be filled into the cache, and why. */
    BypassReason forRead(long startSector, int lengthSectors) {
        return common(startSector, lengthSectors, loop.nowNs(), settings);
    }

    private BypassReason common(long startSector, int lengthSectors, long nowNs, BypassSettings s) {
        long runBytes = streams.record(startSector, (long) lengthSectors * BlockDevice.SECTOR_BYTES, nowNs);
        if (s.sequentialCutoffBytes() > 0 && runBytes >= s.sequentialCutoffBytes()) {
            return BypassReason.SEQUENTIAL;
        }
        if (congestion.congested(s.congestedReadThresholdNs(), s.congestedWriteThresholdNs(), nowNs)) {
            return BypassReason.CONGESTED;
        }
        return BypassReason.NONE;
    }

    /**
     * How hard new dirty data is throttled: below 0 if not at all, else 0 at the start mark rising to 1 at the
     * sync cutoff (and beyond it, capped by the throttle). Measured in dirty data, not buckets in use (see
     * {@link OccupancyGauge}): under small random overwrites the buckets in use passed the start mark with a
     * tenth of the cache dirty, and the throttle held 4,900-24,400 writes of a 10 s run at QD32 for up to 19 ms
     * each (25-106 s of delay in all); paced by dirty data it held none (docs/bench-history/nbd.md "2026-12-02: a
     * log-structured cache on fresh pages").
     */
    double throttlePressure() {
        BypassSettings s = settings;
        if (s.throttleStartPercent() >= 100 || s.throttleDelayNsMax() == 0) {
            return -1;
        }
        double dirty = occupancy.dirtyDataPercent(loop.nowNs());
        if (dirty <= s.throttleStartPercent()) {
            return -1;
        }
        double span = Math.max(1, s.cutoffWritebackSyncPercent() - s.throttleStartPercent());
        return (dirty - s.throttleStartPercent()) / span;
    }

    /** The measured backing write rate the throttle paces by, sectors per second. */
    double backingRateSectorsPerSecond() {
        return backingRate.rateSectorsPerSecond(loop.nowNs());
    }

    /** Dirty data over the data buckets' capacity, percent (see {@link OccupancyGauge}). */
    double dirtyDataPercent() {
        return occupancy.dirtyDataPercent(loop.nowNs());
    }

    /** The share of data buckets in use, percent (see {@link OccupancyGauge}). */
    double inUsePercent() {
        return occupancy.inUsePercent(loop.nowNs());
    }

    /** The data buckets in use now (see {@link OccupancyGauge}). */
    int inUseBuckets() {
        return occupancy.inUseBuckets(loop.nowNs());
    }
}

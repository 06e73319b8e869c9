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
    /** Buckets holding dirty data (percent of the data buckets) from which the throttle paces writers for room. */
    static final double ROOM_THROTTLE_START_PERCENT = 60;
    /**
     * Buckets holding dirty data at which writers are paced to exactly what the backing device takes: below 100 %
     * with a margin, since the gauge moves in steps as writeback's sweep completes (ours).
     */
    static final double ROOM_THROTTLE_FULL_PERCENT = 90;
    /**
     * Pressure past 1 at which the pace reaches its minimum: for room, a third of the 60-90 % span, so 100 % of the
     * buckets in use paces writers at a quarter of writeback (ours).
     */
    static final double OVERSHOOT_PRESSURE = 1.0 / 3;
    /** How much faster than writeback writers may fill room at the room curve's start (ours). */
    static final double ROOM_SPEEDUP_AT_START = 2.0;
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
        // bcache should_writeback(): every write up to CUTOFF_WRITEBACK, sync ones up to CUTOFF_WRITEBACK_SYNC, but in
        // dirty data: scarce buckets are the throttle's room curve, and a cache truly out of room the no-room path.
        double dirty = occupancy.dirtyDataPercent(nowNs);
        if (dirty <= s.cutoffWritebackPercent() || (fua && dirty <= s.cutoffWritebackSyncPercent())) {
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
     * How fast new dirty data may come, as a multiple of what the backing device takes; below 0 if not throttled
     * (docs/GC.md "Throttle"). Two curves, the slower wins:
     * <ul>
     *   <li><b>dirty data</b>: from {@link WriteThrottle#SPEEDUP_AT_START} at the throttle's start mark down to 1 at
     *   the write-back cutoff, so the dirty share settles between the two instead of crossing the cutoff (until
     *   2026-12-07 the 1x point was the sync cutoff, 70 %, above the 40 % cutoff: writers ran into the cutoff and
     *   went around the cache, then flooded back when it cleared);</li>
     *   <li><b>room</b>: buckets holding dirty data, from {@link #ROOM_SPEEDUP_AT_START} at
     *   {@link #ROOM_THROTTLE_START_PERCENT} down to 1 at {@link #ROOM_THROTTLE_FULL_PERCENT}. Under small random
     *   writes a log-structured cache's buckets are freed only as writeback's sweep passes, so they run out before
     *   the dirty data reaches the cutoff (measured: 30 % dirty held 90-99 % of the buckets), and a cache without
     *   room sends every write around it to the slow device for seconds.</li>
     * </ul>
     * Past 1 either falls on, linearly, to {@link WriteThrottle#SPEEDUP_MIN} ({@link #OVERSHOOT_PRESSURE}), so the
     * share recedes.
     */
    double throttleSpeedup() {
        BypassSettings s = settings;
        if (s.throttleStartPercent() >= 100 || s.throttleDelayNsMax() == 0) {
            return -1;
        }
        long nowNs = loop.nowNs();
        double dirty = occupancy.dirtyDataPercent(nowNs);
        double inUse = occupancy.inUsePercent(nowNs);
        double speedup = -1;
        if (dirty > s.throttleStartPercent()) {
            double pressure = (dirty - s.throttleStartPercent())
                    / Math.max(1, s.cutoffWritebackPercent() - s.throttleStartPercent());
            speedup = speedup(pressure, WriteThrottle.SPEEDUP_AT_START);
        }
        if (inUse > ROOM_THROTTLE_START_PERCENT) {
            double pressure = (inUse - ROOM_THROTTLE_START_PERCENT)
                    / (ROOM_THROTTLE_FULL_PERCENT - ROOM_THROTTLE_START_PERCENT);
            double room = speedup(pressure, ROOM_SPEEDUP_AT_START);
            speedup = speedup < 0 ? room : Math.min(speedup, room);
        }
        return speedup;
    }

    /**
     * {@code atStart} at pressure 0, 1 at pressure 1, then down to {@link WriteThrottle#SPEEDUP_MIN} at 1 +
     * {@link #OVERSHOOT_PRESSURE}.
     */
    private static double speedup(double pressure, double atStart) {
        return pressure <= 1 ? 1 + (atStart - 1) * (1 - pressure)
                : Math.max(WriteThrottle.SPEEDUP_MIN,
                        1 - (1 - WriteThrottle.SPEEDUP_MIN) * (pressure - 1) / OVERSHOOT_PRESSURE);
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

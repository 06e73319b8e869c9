package io.blockcache.admin;

import io.blockcache.device.DurationHistogram;

/**
 * One volume's writeback at one moment (docs/WRITEBACK.md), copied on the loop thread. Sectors are 512 bytes;
 * counters count since the cache set was opened. Immutable.
 *
 * @param running whether writeback runs at all (knob {@code writeback.<volume>.running})
 * @param policy {@code modern} or {@code classic}
 * @param order key order of modern passes: {@code lba}, {@code fifo} or {@code auto}
 * @param frontEndIdle true if the front end was idle at the last 100 ms sample (writeback then runs at full speed)
 * @param dirtyBytes dirty bytes of the volume now
 * @param writtenBackSectors sectors written back and marked clean behind a backing flush
 * @param backingWriteSectors sectors in backing writes issued (may exceed the cleaned ones after a failure or a
 *     newer overwrite)
 * @param passes passes started
 * @param keysInFlight keys between pass start and clean marking now
 * @param keysInFlightPeak most keys ever between cache read and backing-write completion
 * @param backingWritesInFlight writeback's own backing writes in flight now
 * @param backingQueueDepth all requests in flight on the backing device now (front end included)
 * @param measuredBackingBytesPerSecond backing bandwidth the queue governor measured
 * @param rate the terms of the last PI update
 * @param readErrors cache reads that failed
 * @param checksumErrors cache reads whose data failed its CRC32C
 * @param writeErrors backing writes that failed
 * @param flushErrors backing flushes that failed
 * @param lastError the last writeback failure (cache read, backing write or flush), or null
 * @param backingFailure the first failed flush of the backing device, or null: once set, no FLUSH or FUA write
 *     of the volume can succeed, and dirty data stays in the cache, until a restart
 * @param drain the admin API's last drain of this volume
 * @param epochs epoch ordering (docs/WRITEBACK.md, "Epoch ordering")
 * @param degraded why writeback of the volume is held until a restart because its backing file changed under it
 *     (deleted, replaced, truncated), or null
 * @param passDurations how long each pass took, from its cache reads to the end of its last backing write
 */
public record WritebackSnapshot(boolean running, String policy, String order, boolean frontEndIdle, boolean overloaded,
                                long dirtyBytes,
                                long writtenBackSectors, long backingWriteSectors, long passes, long keysInFlight,
                                long keysInFlightPeak, long backingWritesInFlight, long backingQueueDepth,
                                double measuredBackingBytesPerSecond, Rate rate, long readErrors, long checksumErrors,
                                long writeErrors, long flushErrors, String lastError, String backingFailure,
                                DrainSnapshot drain, Epochs epochs, String degraded,
                                DurationHistogram.Counts passDurations) {

    /** Every failure counted: each leaves its keys dirty, and writeback retries them after a backoff. */
    public long errors() {
        return readErrors + checksumErrors + writeErrors + flushErrors;
    }

    /**
     * Epoch ordering of one volume.
     *
     * @param ordering {@code none}, {@code epochs} or {@code journaled} (knob {@code writeback.<volume>.ordering})
     * @param current the epoch new writes join (every FLUSH and FUA write closes one)
     * @param oldestDirty the oldest epoch that still holds dirty data, the one writeback works on; null if none, or if
 *     ordering is off (epochs of dirty data are kept only while it is on)
     * @param dirtyEpochs epochs that still hold dirty data
     * @param requestsWaiting front-end requests waiting for older epochs to be written back now
     * @param waitsTotal front-end requests that ever had to wait
     * @param orderHeld true while the volume holds writeback and everything that would go around the cache until a
     *     durable step of an ordering switch is done (the journal's void record, the damage map's cleared flag:
     *     docs/WRITEBACK.md); a volume held for long has a failing journal or map device
     * @param backingLog where journaled write-back stands on the backing log (idle, replaying, logging, placing,
     *     finishing: docs/WRITEBACK.md "Journaled write-back"), or null if the backing device has none
     * @param logGroups groups journaled write-back committed to the backing log since the start
     */
    public record Epochs(String ordering, long current, Long oldestDirty, int dirtyEpochs, int requestsWaiting,
                         long waitsTotal, boolean orderHeld, String backingLog, long logGroups) {
    }

    /**
     * The terms of the last rate update, as bcache's {@code writeback_rate_debug} shows them. While the front end
     * is idle or a drain runs, writeback ignores this rate and runs at full speed (bounded by its queue governor).
     *
     * @param targetSectors dirty sectors the controller steers toward
     * @param errorSectors dirty minus target sectors at the update
     * @param proportionalSectorsPerSecond P term (or the fragmentation boost when larger)
     * @param integralSectorsPerSecond I term
     * @param fragmentBoostSectorsPerSecond the fragmentation term (0 when it did not apply)
     * @param changeSectorsPerSecond the new rate minus the previous one
     * @param rateSectorsPerSecond the paced rate in force while the front end is busy
     * @param integralFrozen true if anti-windup kept the integral from growing at the last update
     */
    public record Rate(long targetSectors, long errorSectors, long proportionalSectorsPerSecond,
                       long integralSectorsPerSecond, long fragmentBoostSectorsPerSecond, long changeSectorsPerSecond,
                       long rateSectorsPerSecond, boolean integralFrozen) {
    }
}

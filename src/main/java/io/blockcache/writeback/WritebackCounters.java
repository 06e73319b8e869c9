package io.blockcache.writeback;

import io.blockcache.device.DurationHistogram;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one volume's writeback, for statistics, benchmarks and tests. Written on the loop thread, readable
 * from any thread. Sectors are 512 bytes.
 */
public final class WritebackCounters {
    final AtomicLong passes = new AtomicLong();
    final AtomicLong keysTaken = new AtomicLong();
    final AtomicLong keysDropped = new AtomicLong();
    final AtomicLong expiredKeysTaken = new AtomicLong();
    final AtomicLong keysCleaned = new AtomicLong();
    final AtomicLong sectorsCleaned = new AtomicLong();
    final AtomicLong sectorsOverwrittenMeanwhile = new AtomicLong();
    final AtomicLong cacheReads = new AtomicLong();
    final AtomicLong backingWrites = new AtomicLong();
    final AtomicLong backingWriteSectors = new AtomicLong();
    final AtomicLong backingWritesInFlight = new AtomicLong();
    final AtomicLong backingWritesInFlightPeak = new AtomicLong();
    final AtomicLong keysInFlightPeak = new AtomicLong();
    final AtomicLong flushes = new AtomicLong();
    final AtomicLong readErrors = new AtomicLong();
    final AtomicLong checksumErrors = new AtomicLong();
    final AtomicLong writeErrors = new AtomicLong();
    final AtomicLong flushErrors = new AtomicLong();
    final AtomicLong chunksWhole = new AtomicLong();
    final AtomicLong chunksPartial = new AtomicLong();
    final AtomicLong chunkFillSectors = new AtomicLong();
    final AtomicLong chunkFillsFromBacking = new AtomicLong();
    final AtomicLong chunksInFlightPeak = new AtomicLong();
    final AtomicLong indexSweeps = new AtomicLong();
    final AtomicLong logGroups = new AtomicLong();
    /** Loop thread only: it has no lock of its own (stats are copied there). */
    private final DurationHistogram passDurations = new DurationHistogram();

    void passEnded(long durationNs) {
        passDurations.record(durationNs);
    }

    /**
     * How long each pass took since open, loop nanoseconds from its start (cache reads issued) to the end of its last
     * backing write (before the flush that marks it clean). Only on the loop thread.
     */
    public DurationHistogram.Counts passDurations() {
        return passDurations.counts();
    }

    /** Passes started. */
    public long passes() { return passes.get(); }
    /** Keys taken into passes (validated against the index). */
    public long keysTaken() { return keysTaken.get(); }
    /** Buffered keys dropped at take time because the index no longer held them exactly (overwritten, trimmed). */
    public long keysDropped() { return keysDropped.get(); }
    /** Keys taken because they were older than dirty_expire. */
    public long expiredKeysTaken() { return expiredKeysTaken.get(); }
    /** Keys whose clean marking was applied after a backing flush. */
    public long keysCleaned() { return keysCleaned.get(); }
    /** Sectors written back and marked clean: the writeback progress figure. */
    public long sectorsCleaned() { return sectorsCleaned.get(); }
    /** Sectors written back but left dirty because a newer write replaced them meanwhile. */
    public long sectorsOverwrittenMeanwhile() { return sectorsOverwrittenMeanwhile.get(); }
    /** Cache-device reads issued. */
    public long cacheReads() { return cacheReads.get(); }
    /** Backing-device writes issued (merged: one may carry several keys). */
    public long backingWrites() { return backingWrites.get(); }
    /** Sectors in those writes. */
    public long backingWriteSectors() { return backingWriteSectors.get(); }
    /** Backing writes in flight now. */
    public long backingWritesInFlight() { return backingWritesInFlight.get(); }
    /** Most backing writes ever in flight at once. */
    public long backingWritesInFlightPeak() { return backingWritesInFlightPeak.get(); }
    /** Most keys ever between cache read and backing-write completion at once. */
    public long keysInFlightPeak() { return keysInFlightPeak.get(); }
    /** Backing flushes issued before clean markings. */
    public long flushes() { return flushes.get(); }
    /** Cache reads that failed. */
    public long readErrors() { return readErrors.get(); }
    /** Cache reads whose data failed its CRC32C. */
    public long checksumErrors() { return checksumErrors.get(); }
    /** Backing writes that failed. */
    public long writeErrors() { return writeErrors.get(); }
    /** Backing flushes that failed (their keys stay dirty). */
    public long flushErrors() { return flushErrors.get(); }
    /** Object stores: chunks written back whole (one write, gaps filled from the cache). */
    public long chunksWhole() { return chunksWhole.get(); }
    /** Object stores: chunks whose dirty pieces were written alone (the store fetches the rest). */
    public long chunksPartial() { return chunksPartial.get(); }
    /** Object stores: clean sectors read from the cache to fill whole chunks. */
    public long chunkFillSectors() { return chunkFillSectors.get(); }
    /** Object stores: clean fills the cache could not give (CRC or read failed), read from the backing instead. */
    public long chunkFillsFromBacking() { return chunkFillsFromBacking.get(); }
    /** Scans that went through the whole index (either buffer's; see {@code rescan_delay_ms}). */
    public long indexSweeps() { return indexSweeps.get(); }
    /** Object stores: most chunks ever between cache read and backing-write completion at once. */
    public long chunksInFlightPeak() { return chunksInFlightPeak.get(); }

    /** Journaled write-back: groups committed to the backing log ({@code ordering=journaled}). */
    public long logGroups() { return logGroups.get(); }

    static void raisePeak(AtomicLong peak, long value) {
        if (value > peak.get()) {
            peak.set(value);
        }
    }
}

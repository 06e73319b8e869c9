package io.blockcache.volume;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one volume's front end. Written on the loop thread, readable from any thread.
 * Units are sectors of 512 bytes unless a name says otherwise.
 */
public final class VolumeStats {
    final AtomicLong readHitSectors = new AtomicLong();
    final AtomicLong readMissSectors = new AtomicLong();
    final AtomicLong writeCachedSectors = new AtomicLong();
    final AtomicLong writeBypassedSectors = new AtomicLong();
    final AtomicLong fillSectors = new AtomicLong();
    final AtomicLong fillsRaced = new AtomicLong();
    final AtomicLong checksumErrors = new AtomicLong();
    final AtomicLong cacheWriteErrors = new AtomicLong();
    final AtomicLong writesForcedIntoCache = new AtomicLong();
    final AtomicLong sequentialBypassedSectors = new AtomicLong();
    final AtomicLong congestedBypassedSectors = new AtomicLong();
    final AtomicLong occupancyBypassedSectors = new AtomicLong();
    final AtomicLong noRoomBypassedSectors = new AtomicLong();
    final AtomicLong fillsSkippedSectors = new AtomicLong();
    final AtomicLong fillsNoRoomSectors = new AtomicLong();
    final AtomicLong writesThrottled = new AtomicLong();
    final AtomicLong throttleDelayNsTotal = new AtomicLong();
    final AtomicLong throttleDelayNsMax = new AtomicLong();
    final AtomicLong admittedSectors = new AtomicLong();
    final AtomicLong rejectedSectors = new AtomicLong();
    final AtomicLong promotedSectors = new AtomicLong();

    /** Clean read-hit sectors rewritten into the newest bucket before eviction reached theirs (docs/CACHING.md). */
    public long promotedSectors() {
        return promotedSectors.get();
    }

    /** Read-miss sectors read admission let fill the cache (docs/CACHING.md). */
    public long admittedSectors() {
        return admittedSectors.get();
    }

    /** Read-miss sectors read admission kept out of the cache: their blocks were not seen often enough. */
    public long rejectedSectors() {
        return rejectedSectors.get();
    }

    /** Sectors read from the cache. */
    public long readHitSectors() {
        return readHitSectors.get();
    }

    /** Sectors read from the backing device. */
    public long readMissSectors() {
        return readMissSectors.get();
    }

    /** Sectors written into the cache (dirty or write-through copies). */
    public long writeCachedSectors() {
        return writeCachedSectors.get();
    }

    /** Sectors written around the cache to the backing device. */
    public long writeBypassedSectors() {
        return writeBypassedSectors.get();
    }

    /** Sectors copied into the cache after read misses. */
    public long fillSectors() {
        return fillSectors.get();
    }

    /** Fills dropped because a write raced them (bcache's "miss collisions", docs/ARCHITECTURE.md §1.2 item 4). */
    public long fillsRaced() {
        return fillsRaced.get();
    }

    /** Cache reads whose data failed its CRC32C. */
    public long checksumErrors() {
        return checksumErrors.get();
    }

    /** Cache-device writes that failed. */
    public long cacheWriteErrors() {
        return cacheWriteErrors.get();
    }

    /** Writes that would have gone around the cache but overlapped an in-flight writeback, so were cached. */
    public long writesForcedIntoCache() {
        return writesForcedIntoCache.get();
    }

    /** Write sectors sent around the cache because their stream was sequential past the cutoff. */
    public long sequentialBypassedSectors() {
        return sequentialBypassedSectors.get();
    }

    /** Write sectors sent around the cache because the cache device was congested. */
    public long congestedBypassedSectors() {
        return congestedBypassedSectors.get();
    }

    /** Write sectors sent around the cache by the occupancy cutoffs. */
    public long occupancyBypassedSectors() {
        return occupancyBypassedSectors.get();
    }

    /** Write sectors that were to be cached but found no free bucket, so went around the cache. */
    public long noRoomBypassedSectors() {
        return noRoomBypassedSectors.get();
    }

    /** Read-miss sectors not filled into the cache because the read was sequential or the cache congested. */
    public long fillsSkippedSectors() {
        return fillsSkippedSectors.get();
    }

    /** Sectors of read misses not filled because the cache had no free bucket for them at the time. */
    public long fillsNoRoomSectors() {
        return fillsNoRoomSectors.get();
    }

    /** Write-back writes the throttle held for a while. */
    public long writesThrottled() {
        return writesThrottled.get();
    }

    /** Total time the throttle held writes, nanoseconds. */
    public long throttleDelayNsTotal() {
        return throttleDelayNsTotal.get();
    }

    /** The longest time the throttle held one write, nanoseconds. */
    public long throttleDelayNsMax() {
        return throttleDelayNsMax.get();
    }

    void countBypass(BypassReason reason, long sectors) {
        switch (reason) {
            case SEQUENTIAL -> sequentialBypassedSectors.addAndGet(sectors);
            case CONGESTED -> congestedBypassedSectors.addAndGet(sectors);
            case OCCUPANCY -> occupancyBypassedSectors.addAndGet(sectors);
            case NONE -> { }
            default -> throw new IllegalStateException("unknown bypass reason " + reason);
        }
    }

    void countThrottled(long delayNs) {
        writesThrottled.incrementAndGet();
        throttleDelayNsTotal.addAndGet(delayNs);
        throttleDelayNsMax.accumulateAndGet(delayNs, Math::max);
    }
}

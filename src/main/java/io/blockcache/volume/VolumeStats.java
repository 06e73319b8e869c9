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

    /** Fills dropped because a write raced them (DESIGN.md §1 "miss collisions"). */
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

}

package io.blockcache.writeback;

import java.util.Map;
import java.util.TreeMap;

/**
 * The keys whose writeback is in flight, from the moment a pass takes them until their clean marking is
 * applied (or they are given up). Keys never overlap, so an overlap test is one floor lookup.
 *
 * <p>Thread rule: the loop thread.
 */
final class InFlightKeys {
    private final TreeMap<Long, DirtyKey> keys = new TreeMap<>();

    /** True if a key in flight overlaps {@code [startSector, + lengthSectors)}. */
    boolean overlaps(long startSector, long lengthSectors) {
        if (keys.isEmpty()) {
            return false; // asked for every front-end write: the look-up below boxes its key
        }
        Map.Entry<Long, DirtyKey> floor = keys.lowerEntry(startSector + lengthSectors);
        return floor != null && floor.getValue().endSector() > startSector;
    }

    /** Registers a key taken for writeback; it must overlap none in flight. */
    void add(DirtyKey key) {
        if (overlaps(key.startSector(), key.lengthSectors())) {
            throw new IllegalStateException("writeback key [" + key.startSector() + ", " + key.endSector()
                    + ") overlaps a key already in flight");
        }
        keys.put(key.startSector(), key);
    }

    /** Receives one range of sectors. */
    interface RangeVisitor {
        void range(long startSector, long lengthSectors);
    }

    /**
     * Calls {@code gap} for each maximal part of {@code [startSector, + lengthSectors)} that no key in flight overlaps,
     * in LBA order (the whole range if none does).
     */
    void forEachGap(long startSector, long lengthSectors, RangeVisitor gap) {
        long end = startSector + lengthSectors;
        long at = startSector;
        Map.Entry<Long, DirtyKey> floor = keys.floorEntry(startSector);
        if (floor != null && floor.getValue().endSector() > at) {
            at = floor.getValue().endSector();
        }
        for (DirtyKey key : keys.subMap(startSector, false, end, false).values()) {
            if (key.startSector() > at) {
                gap.range(at, key.startSector() - at);
            }
            at = Math.max(at, key.endSector());
        }
        if (at < end) {
            gap.range(at, end - at);
        }
    }

    /** Ends a key's writeback (cleaned, given up or failed). */
    void remove(DirtyKey key) {
        if (keys.remove(key.startSector()) != key) {
            throw new IllegalStateException("writeback key at " + key.startSector() + " was not in flight");
        }
    }

    int size() {
        return keys.size();
    }
}

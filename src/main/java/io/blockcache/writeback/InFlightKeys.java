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

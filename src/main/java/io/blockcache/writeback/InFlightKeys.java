package io.blockcache.writeback;

import io.blockcache.loop.EventLoop;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The keys whose writeback is in flight, from the moment a pass takes them until their clean marking is
 * applied (or they are given up), and the front-end requests waiting for such keys to clear. Keys never
 * overlap, so an overlap test is one floor lookup.
 *
 * <p>Thread rule: the loop thread.
 */
final class InFlightKeys {
    private final EventLoop loop;
    private final TreeMap<Long, DirtyKey> keys = new TreeMap<>();
    private final List<Waiter> waiters = new ArrayList<>();

    private record Waiter(long startSector, long lengthSectors, Runnable task) {
    }

    InFlightKeys(EventLoop loop) {
        this.loop = loop;
    }

    /** True if a key in flight overlaps {@code [startSector, + lengthSectors)}. */
    boolean overlaps(long startSector, long lengthSectors) {
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

    /** Ends a key's writeback (cleaned, given up or failed) and releases requests no longer blocked. */
    void remove(DirtyKey key) {
        if (keys.remove(key.startSector()) != key) {
            throw new IllegalStateException("writeback key at " + key.startSector() + " was not in flight");
        }
        if (waiters.isEmpty()) {
            return;
        }
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (!overlaps(waiter.startSector, waiter.lengthSectors)) {
                it.remove();
                loop.execute(waiter.task);
            }
        }
    }

    /** Runs {@code task} now if nothing overlapping is in flight, else once the last overlapping key ends. */
    void whenClear(long startSector, long lengthSectors, Runnable task) {
        if (!overlaps(startSector, lengthSectors)) {
            task.run();
            return;
        }
        waiters.add(new Waiter(startSector, lengthSectors, task));
    }

    int size() {
        return keys.size();
    }

    int waiting() {
        return waiters.size();
    }
}

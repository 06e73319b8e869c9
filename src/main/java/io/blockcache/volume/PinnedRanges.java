package io.blockcache.volume;

import static io.blockcache.loop.Checks.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pinned sector ranges of one volume (docs/CACHING.md "Pinning"): data in them is never dropped by eviction (GC
 * moves it out of a victim bucket instead) and their read misses are always filled. Kept merged: no two ranges
 * overlap or touch, so {@link #sectors} is the union's size.
 *
 * <p>Thread rule: changed and walked on the cache's loop thread; {@link #sectors} may be read from any thread
 * (statistics).
 */
public final class PinnedRanges {
    /** Ranges per volume at most: a pin is an operator's command, and eviction walks them all. */
    public static final int RANGES_MAX = 1024;

    /** Start sector to end sector (exclusive), merged. */
    private final TreeMap<Long, Long> ranges = new TreeMap<>();
    private volatile long sectors;

    /**
     * Pins {@code [startSector, startSector + lengthSectors)}, merged with the ranges it overlaps or touches.
     *
     * @return false (nothing changed) if that would make more than {@link #RANGES_MAX} ranges
     */
    public boolean add(long startSector, long lengthSectors) {
        check(startSector >= 0 && lengthSectors > 0, "pin range [%s, +%s)", startSector, lengthSectors);
        long start = startSector;
        long end = startSector + lengthSectors;
        Map.Entry<Long, Long> before = ranges.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            start = before.getKey();
            end = Math.max(end, before.getValue());
        }
        List<Long> swallowed = new ArrayList<>(ranges.subMap(start, true, end, true).keySet());
        if (ranges.size() - swallowed.size() + 1 > RANGES_MAX) {
            return false;
        }
        for (Long key : swallowed) {
            end = Math.max(end, ranges.remove(key));
        }
        ranges.put(start, end);
        recount();
        return true;
    }

    /**
     * Unpins {@code [startSector, startSector + lengthSectors)}: ranges are cut around it.
     *
     * @return false (nothing changed) if cutting would make more than {@link #RANGES_MAX} ranges
     */
    public boolean remove(long startSector, long lengthSectors) {
        check(startSector >= 0 && lengthSectors > 0, "unpin range [%s, +%s)", startSector, lengthSectors);
        long end = startSector + lengthSectors;
        Map.Entry<Long, Long> before = ranges.lowerEntry(startSector);
        boolean splits = before != null && before.getValue() > end;
        if (splits && ranges.size() + 1 > RANGES_MAX) {
            return false;
        }
        if (before != null && before.getValue() > startSector) {
            ranges.put(before.getKey(), startSector);
            if (before.getValue() > end) {
                ranges.put(end, before.getValue());
            }
        }
        for (Long key : new ArrayList<>(ranges.subMap(startSector, true, end, false).keySet())) {
            long rangeEnd = ranges.remove(key);
            if (rangeEnd > end) {
                ranges.put(end, rangeEnd);
            }
        }
        recount();
        return true;
    }

    /** Whether any sector of {@code [startSector, startSector + lengthSectors)} is pinned. O(log ranges). */
    public boolean overlaps(long startSector, long lengthSectors) {
        if (ranges.isEmpty()) {
            return false; // the common case, checked first on the request path
        }
        Map.Entry<Long, Long> at = ranges.lowerEntry(startSector + lengthSectors);
        return at != null && at.getValue() > startSector;
    }

    /** Sectors of {@code [startSector, startSector + lengthSectors)} pinned already. O(log ranges + ranges met). */
    public long pinnedSectorsIn(long startSector, long lengthSectors) {
        long end = startSector + lengthSectors;
        Long from = ranges.floorKey(startSector);
        long pinned = 0;
        for (Map.Entry<Long, Long> range : ranges.subMap(from == null ? startSector : from, true, end, false)
                .entrySet()) {
            pinned += Math.max(0, Math.min(end, range.getValue()) - Math.max(startSector, range.getKey()));
        }
        return pinned;
    }

    /** Whether nothing is pinned. */
    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** The ranges, in order, as {start sector, length in sectors} pairs (a copy). */
    public List<long[]> list() {
        List<long[]> out = new ArrayList<>(ranges.size());
        ranges.forEach((start, end) -> out.add(new long[] {start, end - start}));
        return out;
    }

    /** Sectors pinned in all. Any thread. */
    public long sectors() {
        return sectors;
    }

    private void recount() {
        long total = 0;
        for (Map.Entry<Long, Long> range : ranges.entrySet()) {
            total += range.getValue() - range.getKey();
        }
        sectors = total;
    }
}

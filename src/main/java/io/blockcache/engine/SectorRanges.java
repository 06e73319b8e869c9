package io.blockcache.engine;

import io.blockcache.loop.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of sector ranges of one volume, kept merged and sorted: what salvage does not know ({@link Salvager}).
 * Plain and unbounded (one entry per disjoint range); offline use only. Thread rule: one thread at a time.
 */
public final class SectorRanges {
    /** One range: sectors {@code [startSector, endSector)}. */
    public record Range(long startSector, long endSector) {
        public Range {
            Checks.require(startSector >= 0 && endSector > startSector, "bad range [%d, %d)", startSector,
                    endSector);
        }

        /** Length in sectors. */
        public long lengthSectors() {
            return endSector - startSector;
        }
    }

    /** Start sector to end sector (exclusive) of each disjoint, non-adjacent range. */
    private final TreeMap<Long, Long> ranges = new TreeMap<>();

    /** Adds {@code [startSector, endSector)}; an empty range is ignored. */
    public void add(long startSector, long endSector) {
        if (endSector <= startSector) {
            return;
        }
        long start = startSector;
        long end = endSector;
        Map.Entry<Long, Long> before = ranges.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            start = before.getKey();
            end = Math.max(end, before.getValue());
        }
        Map.Entry<Long, Long> next = ranges.ceilingEntry(start);
        while (next != null && next.getKey() <= end) {
            end = Math.max(end, next.getValue());
            ranges.remove(next.getKey());
            next = ranges.ceilingEntry(start);
        }
        ranges.put(start, end);
    }

    /** Removes {@code [startSector, endSector)}; an empty range is ignored. */
    public void remove(long startSector, long endSector) {
        if (endSector <= startSector) {
            return;
        }
        Map.Entry<Long, Long> before = ranges.lowerEntry(startSector);
        if (before != null && before.getValue() > startSector) {
            ranges.put(before.getKey(), startSector);
            if (before.getValue() > endSector) {
                ranges.put(endSector, before.getValue());
            }
        }
        Map.Entry<Long, Long> next = ranges.ceilingEntry(startSector);
        while (next != null && next.getKey() < endSector) {
            ranges.remove(next.getKey());
            if (next.getValue() > endSector) {
                ranges.put(endSector, next.getValue());
            }
            next = ranges.ceilingEntry(startSector);
        }
    }

    /** The parts of {@code [startSector, endSector)} in this set, in order. */
    public List<Range> intersect(long startSector, long endSector) {
        List<Range> out = new ArrayList<>();
        Map.Entry<Long, Long> before = ranges.lowerEntry(startSector);
        if (before != null && before.getValue() > startSector) {
            out.add(new Range(startSector, Math.min(endSector, before.getValue())));
        }
        for (Map.Entry<Long, Long> entry : ranges.subMap(startSector, true, endSector, false).entrySet()) {
            out.add(new Range(entry.getKey(), Math.min(endSector, entry.getValue())));
        }
        return out;
    }

    /** Every range, in order. */
    public List<Range> ranges() {
        List<Range> out = new ArrayList<>(ranges.size());
        ranges.forEach((start, end) -> out.add(new Range(start, end)));
        return out;
    }

    /** True if the set holds no sector. */
    public boolean isEmpty() {
        return ranges.isEmpty();
    }
}

package io.blockcache.volume;

import static io.blockcache.loop.Checks.check;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The epoch of every dirty sector of one volume (docs/WRITEBACK.md, "Epoch ordering"), and the volume's current
 * epoch. Every client FLUSH and every FUA write closes the current epoch at its submission; a dirty extent belongs
 * to the epoch in force when its write was routed. Kept by LBA, beside the index, because a packed index location
 * has no room for it and because a GC move re-points an extent without changing its range or its epoch.
 *
 * <p>Invariant (checked by {@link VolumeIndex} after every change while {@link #tracking}): the ranges held here are
 * exactly the index's dirty sectors. Not persisted: when tracking starts (ordering turned on, also right after a
 * restart) every dirty sector there is joins {@link #ORDER_UNKNOWN}; docs/WRITEBACK.md says what that costs.
 *
 * <p>Memory: one map entry per dirty extent piece (as the index) plus one per epoch that still holds dirty data.
 * Thread rule: the loop thread.
 */
public final class DirtyEpochs {
    /** Returned by {@link #oldest()} when nothing is dirty. */
    public static final long NONE = Long.MAX_VALUE;
    /**
     * The epoch of dirty data whose order is not known: recovered after a restart, or dirty before ordering was
     * turned on. New writes start at {@code ORDER_UNKNOWN + 1}.
     */
    public static final long ORDER_UNKNOWN = 0;

    /** Dirty ranges by start sector; values are {end sector, epoch}. Never overlapping. */
    private final TreeMap<Long, long[]> spans = new TreeMap<>();
    /** Dirty sectors per epoch; an epoch leaves the map when its last sector does. */
    private final TreeMap<Long, Long> sectorsByEpoch = new TreeMap<>();
    private long sectors;
    private long current = ORDER_UNKNOWN + 1;
    private boolean tracking;

    /** The epoch new writes join now. */
    public long current() {
        return current;
    }

    /** Closes the current epoch (a FLUSH or FUA write was submitted); returns the new current epoch. */
    long close() {
        return ++current;
    }

    /** The oldest epoch that still holds dirty sectors, or {@link #NONE}. */
    public long oldest() {
        return sectorsByEpoch.isEmpty() ? NONE : sectorsByEpoch.firstKey();
    }

    /** Dirty sectors recorded, over all epochs. */
    public long sectors() {
        return sectors;
    }

    /** Epochs that still hold dirty sectors. */
    public int epochsHeld() {
        return sectorsByEpoch.size();
    }

    /** Records {@code [startSector, + lengthSectors)} as dirty data of {@code epoch}, replacing what was there. */
    void set(long startSector, long lengthSectors, long epoch) {
        if (!tracking) {
            return;
        }
        clear(startSector, lengthSectors);
        spans.put(startSector, new long[] {startSector + lengthSectors, epoch});
        count(epoch, lengthSectors);
    }

    /** Forgets every dirty sector of {@code [startSector, + lengthSectors)}. */
    void clear(long startSector, long lengthSectors) {
        if (!tracking) {
            return;
        }
        long end = startSector + lengthSectors;
        Map.Entry<Long, long[]> floor = spans.lowerEntry(startSector);
        if (floor != null && floor.getValue()[0] > startSector) {
            long[] span = floor.getValue();
            long spanEnd = span[0];
            span[0] = startSector; // keep the head
            count(span[1], -(Math.min(spanEnd, end) - startSector));
            if (spanEnd > end) {
                spans.put(end, new long[] {spanEnd, span[1]}); // and the tail
                return;
            }
        }
        Iterator<Map.Entry<Long, long[]>> it = spans.subMap(startSector, true, end, false).entrySet().iterator();
        long[] tail = null;
        long tailStart = 0;
        while (it.hasNext()) {
            Map.Entry<Long, long[]> entry = it.next();
            long[] span = entry.getValue();
            long spanStart = entry.getKey();
            count(span[1], -(Math.min(span[0], end) - spanStart));
            if (span[0] > end) {
                tail = new long[] {span[0], span[1]};
                tailStart = end;
            }
            it.remove();
        }
        if (tail != null) {
            spans.put(tailStart, tail);
        }
    }

    /** True if a dirty sector of the range belongs to an epoch older than {@code epoch}. */
    public boolean anyOlderThan(long startSector, long lengthSectors, long epoch) {
        return anyMatching(startSector, lengthSectors, epoch, true);
    }

    /** True if a dirty sector of the range belongs to an epoch newer than {@code epoch}. */
    public boolean anyNewerThan(long startSector, long lengthSectors, long epoch) {
        return anyMatching(startSector, lengthSectors, epoch, false);
    }

    private boolean anyMatching(long startSector, long lengthSectors, long epoch, boolean older) {
        long end = startSector + lengthSectors;
        Map.Entry<Long, long[]> floor = spans.floorEntry(startSector);
        long from = floor != null && floor.getValue()[0] > startSector ? floor.getKey() : startSector;
        for (long[] span : spans.subMap(from, true, end, false).values()) {
            if (older ? span[1] < epoch : span[1] > epoch) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether ranges are recorded at all: only while the volume's writeback keeps epoch order, so that an unordered
     * volume pays nothing per write (docs/BENCHMARKS.md, loop-thread allocation). Epoch numbers advance either way.
     */
    public boolean tracking() {
        return tracking;
    }

    /** Starts recording ranges, from nothing; the caller then seeds the dirty data there is ({@link #seed}). */
    void startTracking() {
        spans.clear();
        sectorsByEpoch.clear();
        sectors = 0;
        tracking = true;
    }

    /** Stops recording and forgets every range. */
    void stopTracking() {
        spans.clear();
        sectorsByEpoch.clear();
        sectors = 0;
        tracking = false;
    }

    /** While starting to track: a dirty range already there joins {@link #ORDER_UNKNOWN}. */
    void seed(long startSector, long lengthSectors) {
        set(startSector, lengthSectors, ORDER_UNKNOWN);
    }

    private void count(long epoch, long delta) {
        long now = sectorsByEpoch.getOrDefault(epoch, 0L) + delta;
        check(now >= 0, "epoch %s would hold %s dirty sectors", epoch, now);
        if (now == 0) {
            sectorsByEpoch.remove(epoch);
        } else {
            sectorsByEpoch.put(epoch, now);
        }
        sectors += delta;
    }
}

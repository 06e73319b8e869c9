package io.blockcache.writeback;

import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;

/**
 * A bounded buffer of dirty keys (bcache's keybuf: 500), refilled in LBA order from a resume cursor over the
 * index that wraps at the end, in slices of bounded work. Keys in the buffer never overlap one another nor a
 * key in flight: a newer scan of a range replaces what the buffer held there, and a front-end change of a
 * range removes the keys there ({@link #removeOverlapping}).
 *
 * <p>Thread rule: the loop thread.
 */
final class DirtyScanner {
    /** Extents examined per refill slice: a few hundred microseconds of work at most. */
    static final int EXAMINED_PER_SLICE = 2048;

    /** Which dirty ranges writeback may take now (epoch ordering: only the oldest epoch's). */
    interface RangeFilter {
        /** Any range. */
        RangeFilter ALL = (startSector, lengthSectors) -> true;

        boolean test(long startSector, long lengthSectors);
    }

    private final TreeMap<Long, DirtyKey> buffer = new TreeMap<>();
    private long cursor;
    private long bufferedSectors;
    private boolean foundSinceWrap;
    private boolean exhausted;
    /** When the cursor last wrapped past the end of the index (a sweep ended); MIN_VALUE: not since the reset. */
    private long sweptAtNs = Long.MIN_VALUE;

    /**
     * Scans one slice from the cursor into the buffer, up to {@code capacity} keys in it. A key is taken if
     * {@code filter} accepts its location, {@code eligible} its range, and it overlaps no key in flight; with
     * {@code piecesAroundInFlight}, an extent that keys in flight overlap in part gives its other parts as keys.
     *
     * <p>Why the pieces: on an object store a pass writes one chunk, so an extent across a chunk boundary goes back as
     * one key per chunk, and while the first is in flight the whole extent overlaps it. Skipped whole, its other
     * pieces stay unfound until the first is marked clean — never, while journaled write-back defers the clean
     * marking of a placed group to its end, which then ended with them unwritten (fuzz seed 347982).
     *
     * @return true if the cursor wrapped around the end of the index in this slice
     */
    boolean refillSlice(ExtentIndex index, LongPredicate filter, RangeFilter eligible, int capacity,
                        InFlightKeys inFlight, DirtyAges ages, long nowNs, boolean piecesAroundInFlight) {
        int room = capacity - buffer.size();
        if (room <= 0) {
            return false;
        }
        long next = index.scan(cursor, filter, room, EXAMINED_PER_SLICE,
                (start, length, location, crc, crcOffset, crcLength) -> {
                    long agedSinceNs = ages.agedSinceNs(ExtentLocation.bucket(location));
                    if (!inFlight.overlaps(start, length)) {
                        if (eligible.test(start, length)) {
                            add(new DirtyKey(start, length, location, crc, crcOffset, crcLength, agedSinceNs));
                            foundSinceWrap = true;
                        }
                        return;
                    }
                    if (piecesAroundInFlight) {
                        inFlight.forEachGap(start, length, (pieceStart, pieceLength) -> {
                            if (eligible.test(pieceStart, pieceLength)) {
                                add(new DirtyKey(pieceStart, (int) pieceLength, ExtentLocation.shifted(location,
                                        (int) (pieceStart - start)), crc, crcOffset, crcLength, agedSinceNs));
                                foundSinceWrap = true;
                            }
                        });
                    }
                });
        if (next == ExtentIndex.CURSOR_END) {
            sweptAtNs = nowNs;
            cursor = 0;
            exhausted = !foundSinceWrap;
            foundSinceWrap = false;
            return true;
        }
        cursor = next;
        return false;
    }

    /** True if the last full sweep of the index found nothing to buffer. */
    boolean exhausted() {
        return exhausted && buffer.isEmpty();
    }

    /** Forgets that a sweep found nothing (something changed). */
    void rearm() {
        exhausted = false;
    }

    /**
     * True while the last sweep of the whole index ended less than {@code delayNs} ago: the scan rests. A sweep costs
     * a visit of every extent (dirty or not), so when writeback keeps up with a stream of small writes, sweeping
     * again at once finds a handful of keys per pass over the whole index (measured: 1,500 sweeps a second, a
     * fifth of the loop thread, under 4 KiB random writes). bcache rests {@code writeback_delay} after such a
     * sweep (bch_writeback_thread).
     */
    boolean resting(long nowNs, long delayNs) {
        return sweptAtNs != Long.MIN_VALUE && nowNs - sweptAtNs < delayNs;
    }

    /** Ends a rest at once: there is a new set of keys to sweep for (the eligible ranges changed). */
    void wake() {
        sweptAtNs = Long.MIN_VALUE;
    }

    private void add(DirtyKey key) {
        removeOverlapping(key.startSector(), key.lengthSectors());
        buffer.put(key.startSector(), key);
        bufferedSectors += key.lengthSectors();
    }

    /** Drops every buffered key overlapping the range; returns how many. */
    int removeOverlapping(long startSector, long lengthSectors) {
        if (buffer.isEmpty()) {
            return 0; // called on every front-end write: skip the boxed keys and the sub-map view
        }
        int removed = 0;
        Map.Entry<Long, DirtyKey> floor = buffer.floorEntry(startSector);
        long from = floor != null && floor.getValue().endSector() > startSector ? floor.getKey() : startSector;
        Iterator<DirtyKey> it = buffer.subMap(from, true, startSector + lengthSectors, false).values().iterator();
        while (it.hasNext()) {
            DirtyKey key = it.next();
            it.remove();
            bufferedSectors -= key.lengthSectors();
            removed++;
        }
        return removed;
    }

    /** Removes and returns the key with the lowest LBA, or null. */
    DirtyKey pollLowest() {
        Map.Entry<Long, DirtyKey> first = buffer.pollFirstEntry();
        return first == null ? null : taken(first.getValue());
    }

    /** Removes and returns the key starting exactly at {@code startSector}, or null (classic contiguity). */
    DirtyKey pollStartingAt(long startSector) {
        DirtyKey key = buffer.remove(startSector);
        return key == null ? null : taken(key);
    }

    /** Removes and returns the oldest key (bucket opening time, then place in the bucket), or null. */
    DirtyKey pollOldest() {
        DirtyKey oldest = null;
        for (DirtyKey key : buffer.values()) { // bounded by the buffer size (500 by default)
            if (oldest == null || key.agedSinceNs() < oldest.agedSinceNs()
                    || (key.agedSinceNs() == oldest.agedSinceNs() && (key.bucket() < oldest.bucket()
                    || (key.bucket() == oldest.bucket()
                    && key.offsetInBucketSectors() < oldest.offsetInBucketSectors())))) {
                oldest = key;
            }
        }
        if (oldest == null) {
            return null;
        }
        buffer.remove(oldest.startSector());
        return taken(oldest);
    }

    private DirtyKey taken(DirtyKey key) {
        bufferedSectors -= key.lengthSectors();
        return key;
    }

    /** Mean length of the buffered keys in sectors (0 when empty). */
    long meanKeySectors() {
        return buffer.isEmpty() ? 0 : bufferedSectors / buffer.size();
    }

    int size() {
        return buffer.size();
    }

    boolean isEmpty() {
        return buffer.isEmpty();
    }
}

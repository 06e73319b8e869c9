package io.blockcache.nbd;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Exclusive locks on sector ranges of one export, so that a read-modify-write of a partial sector can never
 * interleave with another write of the same sector (from any connection) and lose an update.
 *
 * <p>Fair: a request waits while it overlaps a held range <em>or</em> an earlier waiter, so overlapping
 * requests are granted in arrival order and none starves. Non-overlapping requests never wait for each other.
 * Bound: every holder and waiter is an NBD request in flight, so both lists hold at most
 * connections x {@link Connection#REQUESTS_IN_FLIGHT_MAX} entries; lookups are linear scans over them.
 *
 * <p>Allocation: a caller may own a {@link Range} and lock it again and again ({@link #acquire(Range,
 * long, long)}; {@link SectorWriter} does), and the scans index the lists instead of iterating them, so an
 * uncontended lock and release allocate nothing. Granting waiters after a release still makes two short lists.
 *
 * <p>Thread rule: the volumes' loop thread only (no synchronisation).
 */
final class SectorRangeLock {
    /**
     * One granted or waiting range, {@code [startSector, endSector)}; between a release and the next acquire its
     * owner may lock it again for another range.
     */
    static final class Range {
        long startSector;
        long endSector;
        final Consumer<Range> onGranted;
        /** True from acquire to release: a range in a list must not be locked again. */
        private boolean inUse;

        /** @param onGranted told when the range is granted (inside acquire, or inside the release that frees it) */
        Range(Consumer<Range> onGranted) {
            this.onGranted = onGranted;
        }

        boolean overlaps(Range other) {
            return startSector < other.endSector && other.startSector < endSector;
        }
    }

    private final ArrayList<Range> held = new ArrayList<>();
    /** In arrival order. */
    private final ArrayList<Range> waiting = new ArrayList<>();
    private long waitsTotal;

    /**
     * Locks {@code [startSector, endSector)} and gives the held range to {@code onGranted}: at once (inside
     * this call) if the range is free, otherwise later from inside the {@link #release} that frees it.
     *
     * @return the handle to pass to {@link #release}
     */
    Range acquire(long startSector, long endSector, Consumer<Range> onGranted) {
        Range range = new Range(onGranted);
        acquire(range, startSector, endSector);
        return range;
    }

    /**
     * As {@link #acquire(long, long, Consumer)} with a range the caller owns and reuses; its {@code onGranted} is
     * told.
     *
     * @throws IllegalStateException if {@code range} is still held or waiting
     */
    void acquire(Range range, long startSector, long endSector) {
        if (startSector < 0 || endSector <= startSector) {
            throw new IllegalArgumentException("bad sector range [" + startSector + ", " + endSector + ")");
        }
        if (range.inUse) {
            throw new IllegalStateException("sector range [" + range.startSector + ", " + range.endSector
                    + ") locked again before its release");
        }
        range.inUse = true;
        range.startSector = startSector;
        range.endSector = endSector;
        if (overlapsAny(range, held, held.size()) || overlapsAny(range, waiting, waiting.size())) {
            waiting.add(range);
            waitsTotal++;
            return;
        }
        held.add(range);
        range.onGranted.accept(range);
    }

    /** Unlocks a granted range and grants, in arrival order, every waiter that is now free. */
    void release(Range range) {
        int at = indexOf(held, range);
        if (at < 0) {
            throw new IllegalStateException("released a sector range that is not held: [" + range.startSector
                    + ", " + range.endSector + ")");
        }
        held.remove(at);
        range.inUse = false;
        if (waiting.isEmpty()) {
            return; // no contention, the common case: nothing to grant and nothing to allocate
        }
        // Waiters still waiting are compacted to the front of the list, in order: [0, kept).
        List<Range> granted = new ArrayList<>();
        int kept = 0;
        for (int i = 0; i < waiting.size(); i++) {
            Range next = waiting.get(i);
            if (overlapsAny(next, held, held.size()) || overlapsAny(next, waiting, kept)) {
                waiting.set(kept++, next);
            } else {
                held.add(next);
                granted.add(next);
            }
        }
        waiting.subList(kept, waiting.size()).clear();
        for (Range next : granted) {
            next.onGranted.accept(next);
        }
    }

    /** Ranges held now. */
    int heldCount() {
        return held.size();
    }

    /** Requests waiting now. */
    int waitingCount() {
        return waiting.size();
    }

    /** Requests that had to wait, since creation. */
    long waitsTotal() {
        return waitsTotal;
    }

    /** True if {@code range} overlaps one of the first {@code count} of {@code ranges}; by index, no iterator. */
    private static boolean overlapsAny(Range range, ArrayList<Range> ranges, int count) {
        for (int i = 0; i < count; i++) {
            if (range.overlaps(ranges.get(i))) {
                return true;
            }
        }
        return false;
    }

    /** Where {@code range} itself (not an equal one) is in {@code ranges}, or -1. */
    private static int indexOf(ArrayList<Range> ranges, Range range) {
        for (int i = 0; i < ranges.size(); i++) {
            if (ranges.get(i) == range) {
                return i;
            }
        }
        return -1;
    }
}

package io.blockcache.nbd;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
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
 * <p>Thread rule: the volumes' loop thread only (no synchronisation).
 */
final class SectorRangeLock {
    /** One granted or waiting range, {@code [startSector, endSector)}. */
    static final class Range {
        final long startSector;
        final long endSector;
        final Consumer<Range> onGranted;

        Range(long startSector, long endSector, Consumer<Range> onGranted) {
            this.startSector = startSector;
            this.endSector = endSector;
            this.onGranted = onGranted;
        }

        boolean overlaps(Range other) {
            return startSector < other.endSector && other.startSector < endSector;
        }
    }

    private final List<Range> held = new ArrayList<>();
    private final ArrayDeque<Range> waiting = new ArrayDeque<>();
    private long waitsTotal;

    /**
     * Locks {@code [startSector, endSector)} and gives the held range to {@code onGranted}: at once (inside
     * this call) if the range is free, otherwise later from inside the {@link #release} that frees it.
     *
     * @return the handle to pass to {@link #release}
     */
    Range acquire(long startSector, long endSector, Consumer<Range> onGranted) {
        if (startSector < 0 || endSector <= startSector) {
            throw new IllegalArgumentException("bad sector range [" + startSector + ", " + endSector + ")");
        }
        Range range = new Range(startSector, endSector, onGranted);
        if (overlapsAny(range, held) || overlapsAny(range, waiting)) {
            waiting.add(range);
            waitsTotal++;
            return range;
        }
        held.add(range);
        onGranted.accept(range);
        return range;
    }

    /** Unlocks a granted range and grants, in arrival order, every waiter that is now free. */
    void release(Range range) {
        if (!held.remove(range)) {
            throw new IllegalStateException("released a sector range that is not held: [" + range.startSector
                    + ", " + range.endSector + ")");
        }
        if (waiting.isEmpty()) {
            return; // no contention, the common case: nothing to grant and nothing to allocate
        }
        List<Range> granted = new ArrayList<>();
        List<Range> stillWaiting = new ArrayList<>();
        for (Iterator<Range> it = waiting.iterator(); it.hasNext(); ) {
            Range next = it.next();
            if (overlapsAny(next, held) || overlapsAny(next, stillWaiting)) {
                stillWaiting.add(next);
            } else {
                it.remove();
                held.add(next);
                granted.add(next);
            }
        }
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

    private static boolean overlapsAny(Range range, Iterable<Range> ranges) {
        for (Range other : ranges) {
            if (range.overlaps(other)) {
                return true;
            }
        }
        return false;
    }
}

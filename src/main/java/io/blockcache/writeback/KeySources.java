package io.blockcache.writeback;

import io.blockcache.index.ExtentLocation;
import io.blockcache.volume.VolumeIndex;

/**
 * The two buffers a pass takes dirty keys from: keys older than dirty_expire while any exist (they are written
 * back at full speed whatever the rate), else every dirty key in scan order. Each buffer is refilled one bounded
 * scan slice at a time when it runs low.
 *
 * <p>Thread rule: the loop thread.
 */
final class KeySources {
    private final DirtyScanner scanner = new DirtyScanner();
    private final DirtyScanner expiredScanner = new DirtyScanner();
    private final VolumeIndex index;
    private final InFlightKeys inFlight;
    private final DirtyAges ages;
    private final WritebackCounters counters;
    private final Runnable pumpLater;
    /** Passes write chunks, so an extent may be in flight in part (an object store; {@link ChunkPlanner}). */
    private final boolean piecesAroundInFlight;
    private boolean expiryActive;
    private DirtyScanner.RangeFilter eligible = DirtyScanner.RangeFilter.ALL;

    /**
     * @param pumpLater asks for another engine step later (a scan slice found nothing yet)
     * @param piecesAroundInFlight the backing device is written a chunk at a time: the scans take the parts of an
     *     extent that no key in flight overlaps ({@link DirtyScanner#refillSlice})
     */
    KeySources(VolumeIndex index, InFlightKeys inFlight, DirtyAges ages, WritebackCounters counters,
               Runnable pumpLater, boolean piecesAroundInFlight) {
        this.piecesAroundInFlight = piecesAroundInFlight;
        this.index = index;
        this.inFlight = inFlight;
        this.ages = ages;
        this.counters = counters;
        this.pumpLater = pumpLater;
    }

    /** Lets the main scan look again from its cursor (something it skipped may be takeable now). */
    void rearm() {
        scanner.rearm();
    }

    /** Restricts which dirty ranges the scans take from now on (epoch ordering); both scans look again at once. */
    void restrict(DirtyScanner.RangeFilter filter) {
        eligible = filter;
        scanner.wake();
        expiredScanner.wake();
        scanner.rearm();
        expiredScanner.rearm();
    }

    /** The restriction in force (a pass checks its keys against it again: the oldest epoch may have changed). */
    DirtyScanner.RangeFilter eligible() {
        return eligible;
    }

    /** The periodic sample: decides whether expired keys exist and lets both scans look again. */
    void sample(long nowNs, long dirtyExpireNs) {
        expiryActive = ages.oldestDirtyNs() <= nowNs - dirtyExpireNs;
        scanner.rearm();
        expiredScanner.rearm();
    }

    /** A front-end write is about to change the range: buffered keys there are no longer current. */
    void frontEndChanging(long startSector, long lengthSectors) {
        scanner.removeOverlapping(startSector, lengthSectors);
        expiredScanner.removeOverlapping(startSector, lengthSectors);
        scanner.rearm();
    }

    /**
     * Writeback took a whole chunk's range (object stores): buffered keys there are in flight now or were passed
     * over on purpose; a later scan finds what is still dirty.
     */
    void taken(long startSector, long lengthSectors) {
        scanner.removeOverlapping(startSector, lengthSectors);
        expiredScanner.removeOverlapping(startSector, lengthSectors);
    }

    private void countSweep(boolean wrapped) {
        if (wrapped) {
            counters.indexSweeps.incrementAndGet();
        }
    }

    /** True if the main scan's last sweep found nothing to take and neither buffer holds a key. */
    boolean exhausted() {
        return scanner.exhausted() && expiredScanner.isEmpty();
    }

    /** True if {@code source} is the buffer of expired keys. */
    boolean expired(DirtyScanner source) {
        return source == expiredScanner;
    }

    /**
     * The buffer to take from: expired keys first; refills one slice when a buffer runs low, unless its scan rests
     * after a sweep of the whole index (only if {@code mayRest}: writeback paced and not behind its dirty target;
     * idle, a drain, requests held for older epochs or too much dirty data sweep again at once); null if none.
     */
    DirtyScanner choose(long nowNs, WritebackSettings settings, boolean mayRest) {
        long restNs = mayRest ? settings.rescanDelayNs() : 0;
        if (expiryActive) {
            if (expiredScanner.isEmpty() && !expiredScanner.exhausted() && !expiredScanner.resting(nowNs, restNs)) {
                long thresholdNs = nowNs - settings.dirtyExpireNs();
                countSweep(expiredScanner.refillSlice(index.extents(), location -> ExtentLocation.dirty(location)
                        && ages.agedSinceNs(ExtentLocation.bucket(location)) <= thresholdNs,
                        eligible, settings.bufferKeysMax(), inFlight, ages, nowNs, piecesAroundInFlight));
            }
            if (!expiredScanner.isEmpty()) {
                return expiredScanner;
            }
        }
        if (scanner.size() < settings.bufferKeysMax() / 2 && !scanner.exhausted()
                && index.extents().dirtySectors() > 0 && !scanner.resting(nowNs, restNs)) {
            countSweep(scanner.refillSlice(index.extents(), ExtentLocation::dirty, eligible, settings.bufferKeysMax(),
                    inFlight, ages, nowNs, piecesAroundInFlight));
            if (scanner.isEmpty() && !scanner.exhausted() && !scanner.resting(nowNs, restNs)) {
                pumpLater.run(); // keep scanning in the next step, not in this one
            }
        }
        return scanner.isEmpty() ? null : scanner;
    }
}

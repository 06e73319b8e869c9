package io.blockcache.volume;

import static io.blockcache.loop.Checks.check;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The epoch of every dirty sector of one volume (docs/WRITEBACK.md, "Epoch ordering"), and the volume's current
 * epoch. Every client FLUSH and every FUA write closes the current epoch at its submission; a dirty extent belongs
 * to the epoch in force when its write was routed, or to {@link #ORDER_UNKNOWN} if the volume kept no order then or
 * ordering was switched while the write was in flight ({@link #trackingRun}). Kept by LBA, beside the index,
 * because a packed index location has no room for it and because a GC move re-points an extent without changing its
 * range or its epoch.
 *
 * <p>Invariant (checked by {@link VolumeIndex} after every change while {@link #tracking}): the ranges held here are
 * exactly the index's dirty sectors. Persisted through the journal and checkpoints (docs/FORMAT.md §5.2, §6: every
 * dirty insert of a tracking volume carries its epoch): recovery rebuilds the epochs of the recovered dirty data
 * ({@link #forRecovery}) and hands them over ({@link #restore}); when tracking starts, right after the restart,
 * they are taken up exactly. When tracking starts with dirty data whose epoch is not known (ordering turned on live,
 * or recovered data written while it was off) every dirty sector joins {@link #ORDER_UNKNOWN}; docs/WRITEBACK.md
 * says what that costs.
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
    /** The first epoch of this incarnation: every epoch below it was recovered from the journal or a checkpoint. */
    private long firstEpoch = ORDER_UNKNOWN + 1;
    private boolean tracking;
    /** Counts starts and stops of tracking: a write routed in another run has no known order in this one. */
    private long trackingRun;
    /**
     * The epochs recovery rebuilt, until tracking starts and takes them up, or until anything changes the volume
     * while it is not tracking (after that the recovered order no longer describes what the backing device will see).
     */
    private DirtyEpochs recovered;

    /** An empty, tracking instance for recovery to replay the recorded epochs into (the index's twin). */
    public static DirtyEpochs forRecovery() {
        DirtyEpochs epochs = new DirtyEpochs();
        epochs.tracking = true;
        return epochs;
    }

    /**
     * Recovery: a replayed extent insert (checkpoint or journal) of {@code [startSector, + lengthSectors)}: a dirty
     * one with a recorded epoch ({@code epoch} >= 1) sets it; any other leaves the range without one.
     */
    public void replayInsert(long startSector, long lengthSectors, boolean dirty, long epoch) {
        if (dirty && epoch != ORDER_UNKNOWN) {
            set(startSector, lengthSectors, epoch);
        } else {
            clear(startSector, lengthSectors);
        }
    }

    /**
     * Recovery: a replayed {@code EpochsVoid} record (docs/FORMAT.md §5.2): every epoch recorded before it is
     * forgotten, so the dirty data it covered has none and the volume's recovered data is of unknown order.
     */
    public void replayVoid() {
        spans.clear();
        sectorsByEpoch.clear();
        sectors = 0;
    }

    /** Recovery: a replayed removal. */
    public void replayRemove(long startSector, long lengthSectors) {
        clear(startSector, lengthSectors);
    }

    /**
     * Takes the epochs recovery rebuilt ({@code recoveredEpochs}, filled through {@link #replayInsert}); the next
     * {@link #startTracking} uses them. New epochs start after every recovered one.
     */
    void restore(DirtyEpochs recoveredEpochs) {
        check(!tracking, "epochs restored while tracking");
        recovered = recoveredEpochs.sectorsByEpoch.isEmpty() ? null : recoveredEpochs;
        if (recovered != null) {
            current = Math.max(current, recovered.sectorsByEpoch.lastKey() + 1);
        }
        firstEpoch = current;
    }

    /** The first epoch of this incarnation (epochs below it were recovered after a restart). */
    public long firstEpoch() {
        return firstEpoch;
    }

    /**
     * The volume changes while not tracking (a front-end request, a writeback pass): recovered epochs, if any, are
     * forgotten, since what they ordered may now reach the backing device in another order. In memory only: the
     * engine calls {@link VolumeIndex#changingUntracked}, which also voids them on record (the fuzz calls this one
     * alone to plant the bug of forgetting them).
     */
    public void changedUntracked() {
        if (!tracking) {
            recovered = null;
        }
    }

    /** Whether recovered epochs wait for tracking to start. */
    public boolean recoveredPending() {
        return recovered != null;
    }

    /**
     * The recorded epoch of the dirty sector {@code sector}, for the journal and checkpoints: while tracking, its
     * epoch; before tracking started after a restart, the recovered one; else (or not dirty) {@link #ORDER_UNKNOWN}.
     */
    public long recordedEpochAt(long sector) {
        if (tracking) {
            return epochAt(sector);
        }
        return recovered == null ? ORDER_UNKNOWN : recovered.epochAt(sector);
    }

    private long epochAt(long sector) {
        Map.Entry<Long, long[]> floor = spans.floorEntry(sector);
        return floor != null && floor.getValue()[0] > sector ? floor.getValue()[1] : ORDER_UNKNOWN;
    }

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

    /** Dirty sectors of each epoch that holds any, oldest first (a read-only view). */
    public java.util.SortedMap<Long, Long> sectorsByEpoch() {
        return java.util.Collections.unmodifiableSortedMap(sectorsByEpoch);
    }

    /** Dirty sectors of every epoch up to {@code epoch} inclusive. */
    public long sectorsUpTo(long epoch) {
        long total = 0;
        for (long count : sectorsByEpoch.headMap(epoch, true).values()) {
            total += count;
        }
        return total;
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
        if (!tracking || spans.isEmpty()) {
            // Nothing to clear. Recovery asks for every replayed extent without an epoch (10 M in bench recovery):
            // the look-ups below box their keys and make a sub-map view each, which cost 0.3–1.3 s of a crash replay
            // depending on how the JIT compiled them (JFR: TreeMap$NavigableSubMap.<init> under replayInsert).
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
        trackingRun++;
    }

    /** Stops recording and forgets every range. */
    void stopTracking() {
        spans.clear();
        sectorsByEpoch.clear();
        sectors = 0;
        tracking = false;
        trackingRun++;
    }

    /**
     * Which run of tracking (or of not tracking) this is: changes at every start and stop, so that a write routed in
     * one run and landing in another can tell that the epoch it was given means nothing now.
     */
    public long trackingRun() {
        return trackingRun;
    }

    /** While starting to track: a dirty range already there joins {@link #ORDER_UNKNOWN}. */
    void seed(long startSector, long lengthSectors) {
        set(startSector, lengthSectors, ORDER_UNKNOWN);
    }

    /**
     * While starting to track after a restart: the dirty range takes its recovered epochs. Returns false, and
     * records nothing, if a sector of it has none (then nothing recovered can be trusted to order it, and the caller
     * seeds everything as {@link #ORDER_UNKNOWN}).
     */
    boolean seedRecovered(long startSector, long lengthSectors) {
        long end = startSector + lengthSectors;
        long at = startSector;
        Map.Entry<Long, long[]> floor = recovered.spans.floorEntry(startSector);
        long from = floor != null && floor.getValue()[0] > startSector ? floor.getKey() : startSector;
        for (Map.Entry<Long, long[]> entry : recovered.spans.subMap(from, true, end, false).entrySet()) {
            long spanStart = Math.max(entry.getKey(), startSector);
            if (spanStart != at) {
                return false; // a gap
            }
            at = Math.min(entry.getValue()[0], end);
        }
        if (at != end) {
            return false;
        }
        at = startSector;
        for (Map.Entry<Long, long[]> entry : recovered.spans.subMap(from, true, end, false).entrySet()) {
            long spanEnd = Math.min(entry.getValue()[0], end);
            set(at, spanEnd - at, entry.getValue()[1]);
            at = spanEnd;
        }
        return true;
    }

    /** Takes the recovered epochs away (tracking started with them, or could not use them). */
    DirtyEpochs takeRecovered() {
        DirtyEpochs taken = recovered;
        recovered = null;
        return taken;
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

package io.blockcache.writeback;

import io.blockcache.loop.EventLoop;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;

/**
 * Writeback's side of epoch ordering (docs/WRITEBACK.md, "Epoch ordering"): passes take only keys of the oldest
 * epoch that is still dirty. Keys stay dirty until their clean marking, which comes after a backing flush, so the
 * next epoch starts only once this one is written and flushed; the front end ({@code volume.EpochGate}) holds what
 * would overtake it, and is told when a batch settles or writeback fails.
 *
 * <p>Thread rule: the loop thread.
 */
final class EpochOrder {
    private final EventLoop loop;
    private final Volume volume;
    private final KeySources sources;
    private boolean ordered;
    private boolean faultIgnoreEpochs;
    /** While a journaled group is placed: passes take its epochs, up to this one ({@link JournaledGroups}); else -1. */
    private long groupLastEpoch = -1;
    private WritebackOrdering ordering = WritebackOrdering.NONE;

    EpochOrder(EventLoop loop, Volume volume, KeySources sources) {
        this.loop = loop;
        this.volume = volume;
        this.sources = sources;
    }

    /** Applies the knob: the front end's holds and the scans' restriction to the oldest epoch. */
    void apply(WritebackOrdering ordering) {
        this.ordering = ordering;
        ordered = ordering != WritebackOrdering.NONE; // journaled keeps the same holds (JournaledGroups)
        volume.setEpochOrdering(ordered);
        DirtyEpochs epochs = volume.index().epochs();
        long limit = groupLastEpoch;
        sources.restrict(!ordered || faultIgnoreEpochs ? DirtyScanner.RangeFilter.ALL
                : limit >= 0 ? (start, length) -> !epochs.anyNewerThan(start, length, limit)
                : (start, length) -> !epochs.anyNewerThan(start, length, epochs.oldest()));
    }

    /**
     * A journaled group is placed ({@code lastEpoch >= 0}): passes take every epoch up to {@code lastEpoch}, whatever
     * else re-applies the order meanwhile (a knob, a settled batch); -1 ends that and goes back to the oldest epoch.
     */
    void limitToGroup(long lastEpoch) {
        groupLastEpoch = lastEpoch;
        apply(ordering);
    }

    /** The simulator's fault point ({@link Writeback#setFaultIgnoreEpochs}); takes effect at the next apply. */
    void setFaultIgnoreEpochs(boolean on) {
        faultIgnoreEpochs = on;
    }

    /**
     * Whether passes must wait (asked before each step that may start one): without ordering, writeback over dirty data
     * is about to run unordered, so epochs recovered after a restart stop describing the backing device's future and
     * are dropped, and voided on record (they are only taken up if ordering is turned on before anything is written);
     * and while such a void record is not durable, nothing may be written back (a power cut would restore epochs the
     * backing device no longer follows), nor while the damage map still vouches for the order ({@code
     * Volume.orderHeld}). The volume tells writeback when the hold ends.
     */
    boolean holdsPasses() {
        if (!ordered && volume.index().extents().dirtySectors() > 0) {
            volume.index().changingUntracked();
        }
        return volume.orderHeld();
    }

    /** True while front-end requests wait for older epochs: writeback must run, at full speed, whatever else says. */
    boolean waiters() {
        return volume.epochWaiters() > 0;
    }

    /** A clean batch was applied: the oldest epoch may be done, so both scans look again and held requests retry. */
    void batchSettled() {
        if (ordered) {
            sources.restrict(sources.eligible());
            loop.execute(volume::epochsAdvanced); // not inside the flush callback: requests may run now
        }
    }

    /** Writeback failed: it never skips ahead to a later epoch, so held requests are refused with the reason. */
    void writebackFailed(String failure) {
        volume.failEpochWaiters("writeback " + failure);
    }
}

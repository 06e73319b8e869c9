package io.blockcache.engine;

import java.util.Arrays;
import java.util.Locale;

/**
 * How far an open (recovery) has got, for the admin API and {@code bench recovery}: the phase, the work units done
 * and known in it, and how the replay was sliced (docs/ARCHITECTURE.md §4.6). A work unit is one extent or journal
 * record applied, one extent visited by a sweep, or one bucket given its state.
 *
 * <p>Thread rule: written by the opening loop's thread; read it there too (the admin API hops to the loop with
 * {@code LoopCalls}, which is itself the proof that the loop answers while it recovers).
 */
public final class RecoveryProgress {
    /** The steps of an open, in order (docs/FORMAT.md §8). */
    public enum Phase {
        /** Not started. */
        WAITING,
        /** Superblocks, the journal ring and the checkpoint's buckets are being read. */
        READING_METADATA,
        /** Backing device headers are checked against the superblock. */
        CHECKING_BACKINGS,
        /** The checkpoint's chunks are verified and applied. */
        CHECKPOINT,
        /** Journal records after the checkpoint are applied. */
        JOURNAL,
        /** After an unclean stop: clean extents are dropped (docs/FORMAT.md §7 rule 10). */
        DROPPING_CLEAN,
        /** Stale keys are dropped and every bucket's live and dirty sectors recounted. */
        RECOUNTING,
        /** Buckets get their states; journal, space, volumes, writeback and GC are wired; the superblock written. */
        WIRING,
        /** The cache set serves. */
        DONE,
        /** Open refused or failed (see the failure). */
        FAILED;

        /** The name used in JSON: lower case. */
        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The most loop time a slice should take: the recovery goal's 10 ms (measured, not enforced: slices count work
     * units). */
    public static final long SLICE_NS_BUDGET = 10_000_000L;

    private Phase phase = Phase.WAITING;
    private long unitsDone;
    private long unitsTotal;
    private long extentsReplayed;
    private long extentsTotal;
    private long slices;
    private int sliceUnitsPeak;
    private long sliceNsMax;
    private long slicesOverBudget;
    private String failure;
    /** Loop time at which each phase was entered; {@code Long.MIN_VALUE} for a phase not entered. */
    private final long[] phaseStartNs = new long[Phase.values().length];

    /** Creates the progress of an open that has not started. */
    public RecoveryProgress() {
        Arrays.fill(phaseStartNs, Long.MIN_VALUE);
    }

    void enter(Phase next, long total, long nowNs) {
        phase = next;
        unitsDone = 0;
        unitsTotal = total;
        phaseStartNs[next.ordinal()] = nowNs;
    }

    /**
     * Loop time from entering {@code from} to entering {@code to}, in ns (0 in simulated time), or -1 if either
     * was not entered (no clean extents to drop after a clean stop, an open that failed).
     */
    public long nsBetween(Phase from, Phase to) {
        long start = phaseStartNs[from.ordinal()];
        long end = phaseStartNs[to.ordinal()];
        return start == Long.MIN_VALUE || end == Long.MIN_VALUE ? -1 : end - start;
    }

    void expectExtents(long total) {
        extentsTotal = total;
    }

    void extentsReplayed(long count) {
        extentsReplayed += count;
    }

    /** Records one slice of replay work: {@code units} work units in {@code elapsedNs} of loop time. */
    void slice(int units, long elapsedNs) {
        unitsDone += units;
        slices++;
        sliceUnitsPeak = Math.max(sliceUnitsPeak, units);
        sliceNsMax = Math.max(sliceNsMax, elapsedNs);
        if (elapsedNs > SLICE_NS_BUDGET) {
            slicesOverBudget++;
        }
    }

    void failed(String message) {
        phase = Phase.FAILED;
        failure = message;
    }

    /** The current phase. */
    public Phase phase() {
        return phase;
    }

    /** Work units done in the current phase. */
    public long unitsDone() {
        return unitsDone;
    }

    /** Work units the current phase will do, as far as known when it began (0 if unknown). */
    public long unitsTotal() {
        return unitsTotal;
    }

    /** Extents applied so far: checkpoint extents and journal ExtentInsert records. */
    public long extentsReplayed() {
        return extentsReplayed;
    }

    /** Extents the checkpoint and the journal's ExtentInsert records hold (known once the metadata was read). */
    public long extentsTotal() {
        return extentsTotal;
    }

    /** Slices of replay work run so far. */
    public long slices() {
        return slices;
    }

    /** The most work units any one slice did; at most {@link RecoveryReplay#SLICE_UNITS_MAX}. */
    public int sliceUnitsPeak() {
        return sliceUnitsPeak;
    }

    /** The longest slice in loop time, in ns (0 in simulated time, where work takes no time). */
    public long sliceNsMax() {
        return sliceNsMax;
    }

    /**
     * Slices that took longer than {@link #SLICE_NS_BUDGET} of loop time: with at most
     * {@link RecoveryReplay#SLICE_UNITS_MAX} units each, these are slices the loop thread was preempted or paused in.
     */
    public long slicesOverBudget() {
        return slicesOverBudget;
    }

    /** Why open failed, or null. */
    public String failure() {
        return failure;
    }
}

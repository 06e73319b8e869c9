package io.blockcache.crash;

import io.blockcache.loop.Prng;
import io.blockcache.sim.ContractViolation;
import io.blockcache.sim.CrashPointClock;
import io.blockcache.volume.CacheMode;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Enumerates the crash states of one scripted trace in one cache mode and journal delay (CrashMonkey / ALICE
 * style): a counting run finds the trace's N device-operation boundaries; then for every k in 0..N and every
 * subset of the writes pending on the two devices at boundary k (all 2^n if n is at most
 * {@link #EXHAUSTIVE_PENDING_MAX}, else {@link #SAMPLED_SUBSETS} seeded ones including none and all), a replay
 * from scratch halts right after boundary k, keeps that subset, recovers and is checked ({@link CrashPointRun}).
 *
 * <p>Failures are collected, not thrown, so one call reports every failing state. Thread rule: the test's thread.
 */
final class CrashPointEnumerator {
    /** Up to 2^10 = 1024 subsets per crash point are tried exhaustively. */
    static final int EXHAUSTIVE_PENDING_MAX = 10;
    /** Subsets tried per crash point above that: a fixed sample, seeded by the crash point. */
    static final int SAMPLED_SUBSETS = 256;
    /** Failing states described in full at most; the rest are only counted. */
    private static final int FAILURES_KEPT_MAX = 20;

    private final ScriptedTrace trace;
    private final CacheMode mode;
    private final long journalDelayNs;
    private final boolean cacheFlushLies;
    private final boolean epochs;
    private long prefixChecks;
    private long statesWithEpochsRecovered;
    private final List<String> failures = new ArrayList<>();
    private long boundaries;
    private long states;
    private long statesWithSurvivors;
    private long statesWithLosses;
    private long failed;
    private long durableWrittenSectorsChecked;
    private int pendingMax;

    /** Enumerates {@code trace} in {@code mode}; {@code cacheFlushLies} plants a bug (see {@link CrashPointRun}). */
    CrashPointEnumerator(ScriptedTrace trace, CacheMode mode, long journalDelayNs, boolean cacheFlushLies) {
        this(trace, mode, journalDelayNs, cacheFlushLies, false);
    }

    /** As above; with {@code epochs} the volume keeps epoch order and each state is checked for it too. */
    CrashPointEnumerator(ScriptedTrace trace, CacheMode mode, long journalDelayNs, boolean cacheFlushLies,
                         boolean epochs) {
        this.epochs = epochs;
        this.trace = trace;
        this.mode = mode;
        this.journalDelayNs = journalDelayNs;
        this.cacheFlushLies = cacheFlushLies;
    }

    /** Runs the enumeration; read the results from the accessors. */
    CrashPointEnumerator run() {
        CrashPointClock counting = CrashPointClock.counting();
        CrashPointRun countRun = new CrashPointRun(mode, journalDelayNs, counting, label("counting run"),
                cacheFlushLies, epochs);
        countRun.start();
        long openBoundaries = counting.boundaries();
        countRun.runTrace(trace);
        boundaries = counting.boundaries() - openBoundaries;
        for (long k = 0; k <= boundaries; k++) {
            String point = "crash after trace boundary " + k + " of " + boundaries
                    + (k == 0 ? " (before the first)" : " (" + counting.describe(openBoundaries + k) + ")");
            enumerateSubsets(openBoundaries + k, point);
        }
        return this;
    }

    private void enumerateSubsets(long haltAfter, String point) {
        CrashPointRun first = replay(haltAfter, point);
        int cachePending = first.cachePendingWrites();
        int backingPending = first.backingPendingWrites();
        int pending = cachePending + backingPending;
        pendingMax = Math.max(pendingMax, pending);
        List<BitSet> subsets = subsets(pending, new Prng(haltAfter * 31 + pending));
        for (int i = 0; i < subsets.size(); i++) {
            CrashPointRun run = i == 0 ? first : replay(haltAfter, point);
            if (run.cachePendingWrites() != cachePending || run.backingPendingWrites() != backingPending) {
                throw new IllegalStateException(label(point) + ": a replay is not deterministic: pending writes "
                        + run.cachePendingWrites() + "+" + run.backingPendingWrites() + ", first time " + cachePending
                        + "+" + backingPending);
            }
            BitSet subset = subsets.get(i);
            BitSet cacheSurvivors = subset.get(0, cachePending);
            BitSet backingSurvivors = subset.get(cachePending, pending);
            states++;
            statesWithSurvivors += subset.isEmpty() ? 0 : 1;
            statesWithLosses += subset.cardinality() < pending ? 1 : 0;
            try {
                durableWrittenSectorsChecked += run.crashRecoverAndCheck(cacheSurvivors, backingSurvivors);
                prefixChecks += run.prefixChecks();
                statesWithEpochsRecovered += run.recoveredEpochs() >= 2 ? 1 : 0;
            } catch (ContractViolation | IllegalStateException | IllegalArgumentException e) {
                failed++;
                if (failures.size() < FAILURES_KEPT_MAX) {
                    // The run's own messages start with the label; say it once, then the survivors, then what broke.
                    String message = String.valueOf(e.getMessage());
                    String label = label(point) + ", ";
                    failures.add(label + "surviving pending writes (issue order): cache " + cacheSurvivors + " of "
                            + cachePending + ", backing " + backingSurvivors + " of " + backingPending + ": "
                            + (message.startsWith(label) ? message.substring(label.length()) : message));
                }
            }
        }
    }

    private CrashPointRun replay(long haltAfter, String point) {
        CrashPointClock clock = CrashPointClock.haltAfter(haltAfter);
        CrashPointRun run = new CrashPointRun(mode, journalDelayNs, clock, label(point), cacheFlushLies, epochs);
        run.start();
        run.runTrace(trace);
        if (clock.boundaries() != haltAfter) {
            throw new IllegalStateException(label(point) + ": the replay passed " + clock.boundaries()
                    + " boundaries, not " + haltAfter + " (not deterministic?)");
        }
        return run;
    }

    /** All subsets of {@code pending} writes, or a seeded sample that always has none and all of them. */
    static List<BitSet> subsets(int pending, Prng prng) {
        List<BitSet> subsets = new ArrayList<>();
        if (pending <= EXHAUSTIVE_PENDING_MAX) {
            for (long mask = 0; mask < 1L << pending; mask++) {
                subsets.add(BitSet.valueOf(new long[] {mask}));
            }
            return subsets;
        }
        BitSet all = new BitSet();
        all.set(0, pending);
        subsets.add(new BitSet());
        subsets.add(all);
        while (subsets.size() < SAMPLED_SUBSETS) {
            BitSet subset = new BitSet();
            for (int i = 0; i < pending; i++) {
                if (prng.chance(0.5)) {
                    subset.set(i);
                }
            }
            subsets.add(subset);
        }
        return subsets;
    }

    private String label(String point) {
        return "trace " + trace + ", mode " + mode + (epochs ? ", ordering=epochs" : "") + ", journal delay "
                + TimeUnit.NANOSECONDS.toMillis(journalDelayNs) + " ms, " + point;
    }

    long boundaries() {
        return boundaries;
    }

    long states() {
        return states;
    }

    long statesWithSurvivors() {
        return statesWithSurvivors;
    }

    long statesWithLosses() {
        return statesWithLosses;
    }

    long failed() {
        return failed;
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    long durableWrittenSectorsChecked() {
        return durableWrittenSectorsChecked;
    }

    /** States whose recovery found two or more epochs of dirty data to write back in order (with epochs). */
    long statesWithEpochsRecovered() {
        return statesWithEpochsRecovered;
    }

    /** Prefix-oracle checks made (with {@code epochs}). */
    long prefixChecks() {
        return prefixChecks;
    }

    int pendingMax() {
        return pendingMax;
    }
}

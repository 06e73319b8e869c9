package io.blockcache.fuzz;

import io.blockcache.loop.Prng;
import io.blockcache.sim.LoopRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Removes a volume and adds it again while the cache set runs, as an operator does with {@code blockcache volume
 * remove --drain} and {@code volume add} (docs/OPERATIONS.md "Remove a volume", "Add a volume"), between two workload
 * segments of a seed, sometimes with a power cut at a random event of the change. What must hold: a remove while the
 * volume holds dirty data is refused and changes nothing; after the drain the remove and the add succeed; a power cut
 * anywhere in between opens with the volume either attached or not (the superblock rewrite is each change's commit
 * point), and every byte the volume ever acknowledged reads back afterwards (the scenario's verifiers: after a drain
 * the backing device holds it all, and the volume added again serves it from there).
 *
 * <p>In a seed with one volume, the remove must be refused (a cache set keeps at least one volume). Volumes without a
 * backing log are picked from stream 14; after a segment that picks none, a volume with a backing log (added again
 * with its log, as {@code volume add --backing-log} does) is picked from stream 15, which also draws everything of its
 * change, so that stream 14 draws what it drew before backing-log volumes could be added live (2026-12-07).
 * Draws from streams of their own, from the seed, so that every other draw of a seed keeps its value; off for the
 * generators before it. Thread rule: the scenario's thread.
 */
final class VolumeChurn {
    /** Share of seeds that churn volumes at all. */
    static final double SEEDS_THAT_CHURN = 0.3;
    /** Chance, in a seed that churns, that a volume is churned after a segment. */
    private static final double CHURN_CHANCE = 0.5;
    /** Chance that the power is cut during a change. */
    private static final double CUT_CHANCE = 0.5;
    /**
     * A cut lands within this many loop events of the change's start: a remove and an add of a drained volume take
     * about 25 on the simulated devices, so most cuts land inside one of them.
     */
    private static final int CUT_EVENTS_MAX = 40;

    private final FuzzCacheSet cacheSet;
    private final FuzzSetup setup;
    private final Prng prng;
    /** Stream 15: the churn of volumes with a backing log. */
    private final Prng logPrng;
    private final FuzzTrace trace;
    private final LoopRunner runner;
    private final BiFunction<String, Throwable, FuzzViolation> violation;
    private final boolean enabled;
    /** The planted bug the verifiers must catch: the remove discards dirty data instead of draining it first. */
    private boolean plantDiscardDirty;
    private long changes;
    private long changesWithLog;
    private long cuts;
    private long refusals;

    VolumeChurn(FuzzCacheSet cacheSet, FuzzSetup setup, long seed, FuzzGenerator generator, FuzzTrace trace,
                LoopRunner runner, BiFunction<String, Throwable, FuzzViolation> violation) {
        this.cacheSet = cacheSet;
        this.setup = setup;
        this.prng = new Prng(seed * 0x9E3779B97F4A7C15L + 14); // 11-13: disk full and sustained phases
        this.logPrng = new Prng(seed * 0x9E3779B97F4A7C15L + 15);
        this.trace = trace;
        this.runner = runner;
        this.violation = violation;
        this.enabled = generator.drawsVolumeChurn && prng.chance(SEEDS_THAT_CHURN);
    }

    /** Plants the bug the verifiers must catch ({@code FuzzScenario.runDiscardingDirtyOnChurn}). */
    void plantDiscardDirty() {
        plantDiscardDirty = true;
    }

    /** Whether this seed churns volumes. */
    boolean enabled() {
        return enabled;
    }

    /** The volume to remove and add again after this segment, or -1 (draws nothing in a seed that does not churn). */
    int pick() {
        if (!enabled) {
            return -1;
        }
        int picked = pickWithoutLog();
        if (picked >= 0) {
            return picked;
        }
        List<Integer> logged = volumes(true);
        if (logged.isEmpty() || !logPrng.chance(CHURN_CHANCE)) {
            return -1;
        }
        return logged.get(logPrng.nextInt(logged.size()));
    }

    /** Stream 14's pick among the volumes without a backing log, or -1. */
    private int pickWithoutLog() {
        if (!prng.chance(CHURN_CHANCE)) {
            return -1;
        }
        List<Integer> eligible = volumes(false);
        return eligible.isEmpty() ? -1 : eligible.get(prng.nextInt(eligible.size()));
    }

    /** The volumes with (or without) a backing log, in order. */
    private List<Integer> volumes(boolean withLog) {
        List<Integer> found = new ArrayList<>();
        for (int v = 0; v < setup.volumeCount(); v++) {
            if ((setup.logBytes().get(v) > 0) == withLog) {
                found.add(v);
            }
        }
        return found;
    }

    /**
     * Removes volume {@code v} and adds it again; the workload is idle and faults are off. {@code powerCycle} cuts the
     * power and recovers (the scenario's crash and recovery); after it the volume is added again if the open found
     * it removed.
     *
     * @throws FuzzViolation if a refusal is missing, a change fails, or the volume is not attached at the end
     */
    void churn(int v, Runnable powerCycle) {
        String name = FuzzSetup.volumeName(v);
        if (setup.volumeCount() == 1) {
            // A cache set keeps at least one volume: removing the only one is refused and changes nothing.
            drain(name);
            String refused = awaitRemove(v);
            if (refused == null || !cacheSet.attached(v)) {
                throw violation.apply("volume remove of " + name + ", the only volume, was not refused", null);
            }
            trace.add("churn: remove of the only volume refused as it should be: " + refused);
            refusals++;
            return;
        }
        long dirty = cacheSet.volume(v).index().extents().dirtySectors();
        if (dirty > 0 && !plantDiscardDirty) {
            String refused = awaitRemove(v);
            if (refused == null) {
                throw violation.apply("volume remove of " + name + " succeeded while it held " + dirty
                        + " dirty sectors", null);
            }
            if (!cacheSet.attached(v)) {
                throw violation.apply("a refused volume remove of " + name + " detached it (" + refused + ")", null);
            }
            trace.add("churn: remove of " + name + " refused as it should be: " + refused);
            refusals++;
        }
        if (!plantDiscardDirty) {
            drain(name);
        }
        boolean withLog = setup.logBytes().get(v) > 0;
        Prng draws = withLog ? logPrng : prng;
        Prng ids = new Prng(draws.nextLong());
        boolean cut = draws.chance(CUT_CHANCE);
        int cutAfterEvents = cut ? 1 + draws.nextInt(CUT_EVENTS_MAX) : 0;
        trace.add("churn: remove and add " + name + (withLog ? " (with its backing log)" : "")
                + (cut ? ", power cut within " + cutAfterEvents + " events" : ""));
        String[] failure = {null};
        boolean[] finished = {false};
        cacheSet.removeVolume(v, plantDiscardDirty, removed -> {
            if (removed != null) {
                failure[0] = "volume remove of " + name + " failed after a drain: " + removed;
                finished[0] = true;
                return;
            }
            trace.add("churn: " + name + " removed");
            cacheSet.addVolume(v, ids, added -> {
                failure[0] = added == null ? null : "volume add of " + name + " failed: " + added;
                finished[0] = true;
            });
        });
        if (cut) {
            runner.runAtMost(cutAfterEvents, () -> finished[0]);
        }
        if (cut && !finished[0]) {
            cuts++;
            powerCycle.run();
            if (!cacheSet.attached(v)) {
                trace.add("churn: " + name + " was removed when the power went; adding it again");
                String again = awaitAdd(v, ids);
                if (again != null) {
                    throw violation.apply("volume add of " + name + " after a power cut failed: " + again, null);
                }
            }
        } else {
            runner.runUntil(() -> finished[0], "volume remove and add of " + name);
            if (failure[0] != null) {
                throw violation.apply(failure[0], null);
            }
        }
        if (!cacheSet.attached(v)) {
            throw violation.apply(name + " is not attached after its remove and add", null);
        }
        changes++;
        if (withLog) {
            changesWithLog++;
        }
    }

    /** Volumes with a backing log removed and added again. */
    long changesWithLog() {
        return changesWithLog;
    }

    /** Volumes removed and added again. */
    long changes() {
        return changes;
    }

    /** Power cuts during a change. */
    long cuts() {
        return cuts;
    }

    /** Removes refused because the volume held dirty data. */
    long refusals() {
        return refusals;
    }

    private String awaitRemove(int v) {
        String[] result = {null};
        boolean[] done = {false};
        cacheSet.removeVolume(v, plantDiscardDirty, removed -> {
            result[0] = removed;
            done[0] = true;
        });
        runner.runUntil(() -> done[0], "volume remove of " + FuzzSetup.volumeName(v));
        return result[0];
    }

    private String awaitAdd(int v, Prng ids) {
        String[] result = {null};
        boolean[] done = {false};
        cacheSet.addVolume(v, ids, added -> {
            result[0] = added;
            done[0] = true;
        });
        runner.runUntil(() -> done[0], "volume add of " + FuzzSetup.volumeName(v));
        return result[0];
    }

    private void drain(String name) {
        io.blockcache.device.IoResult[] result = {null};
        cacheSet.set().drain(name, progress -> { }, r -> result[0] = r);
        runner.runUntil(() -> result[0] != null, "drain of " + name + " before its removal");
        if (!result[0].ok()) {
            throw violation.apply("drain of " + name + " before its removal failed: " + result[0], null);
        }
    }
}

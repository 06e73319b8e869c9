package io.blockcache.fuzz;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.sim.LoopRunner;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.SimDevice;
import io.blockcache.volume.DamageMap;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Oracle (g) of a fuzz run (docs/TESTING.md): throws the cache device away and checks every volume's backing device
 * against its damage map ({@link DamageOracle}) — at random control slots of a live run, on every crash image, and
 * after the final drain (when every map must be empty). Counts what it checked for {@link FuzzResult}.
 *
 * <p>It reads the devices directly, so checking changes neither the run's timing nor, with a {@code fate} stream of
 * its own, any other draw of the seed. Thread rule: the scenario's thread.
 */
final class DamageChecks {
    /**
     * Chance per control slot that the oracle throws the cache away and checks the backing devices.
     */
    private static final double LIVE_CHECK_CHANCE = 0.05;

    private final FuzzCacheSet cacheSet;
    private final List<ReferenceModel> models;
    private final long rangeBytes;
    private final LoopRunner runner;
    private final Prng fate;
    private final BiFunction<String, Throwable, FuzzViolation> violation;
    private long checks;
    private long checksStale;
    private long checksConsistent;

    DamageChecks(FuzzCacheSet cacheSet, List<ReferenceModel> models, long rangeBytes, LoopRunner runner, Prng fate,
                 BiFunction<String, Throwable, FuzzViolation> violation) {
        this.cacheSet = cacheSet;
        this.models = models;
        this.rangeBytes = rangeBytes;
        this.runner = runner;
        this.fate = fate;
        this.violation = violation;
    }

    /** At a control slot: checks the live devices with {@link #LIVE_CHECK_CHANCE}. */
    void maybeCheckLive() {
        if (fate.chance(LIVE_CHECK_CHANCE)) {
            check(false);
        }
    }

    /**
     * With the cache device thrown away, every backing sector outside the damage map holds what the volume promised;
     * {@code crashImage}: the power is off and the devices hold their crash images.
     *
     * @throws FuzzViolation if a volume's backing device breaks the promise
     */
    void check(boolean crashImage) {
        java.util.Set<String> named = cacheSet.namedBySuperblock();
        for (int v = 0; v < models.size(); v++) {
            SimDevice disk = cacheSet.backingDisk(v);
            SimDevice map = cacheSet.mapDisk(v);
            boolean detached = named != null && !named.contains(FuzzSetup.volumeName(v));
            String broken = detached ? DamageOracle.checkDetached(disk, cacheSet.dataOffsetBytes(v), models.get(v),
                    rangeBytes)
                    : crashImage ? DamageOracle.checkCrashImage(disk, map, models.get(v), rangeBytes)
                    : DamageOracle.checkLive(disk, map, models.get(v), rangeBytes);
            if (broken != null) {
                throw violation.apply(FuzzSetup.volumeName(v) + ": after losing the cache device"
                        + (crashImage ? " in a power cut" : "") + ": " + broken, null);
            }
            checks++;
            if (detached) {
                continue; // its header and map may be torn by an add the cut interrupted: nothing to count
            }
            if (DamageOracle.staleSectors(map, rangeBytes) > 0) {
                checksStale++;
            }
            if (DamageOracle.consistent(map)) {
                checksConsistent++;
            }
        }
    }

    /**
     * After the final drain nothing is dirty: a sweep must leave every damage map empty, and the oracle hold.
     *
     * @throws FuzzViolation if a sweep fails or a map still lists stale sectors
     */
    void checkClearedAfterDrain() {
        for (int v = 0; v < models.size(); v++) {
            DamageMap map = cacheSet.volume(v).damageMap();
            IoResult[] swept = {null};
            map.sweep(r -> swept[0] = r);
            runner.runUntil(() -> swept[0] != null, "damage map sweep after the drain");
            if (!swept[0].ok()) {
                throw violation.apply(FuzzSetup.volumeName(v) + ": damage map sweep failed: " + swept[0], null);
            }
            long stale = DamageOracle.staleSectors(cacheSet.mapDisk(v), rangeBytes);
            if (stale != 0) {
                throw violation.apply(FuzzSetup.volumeName(v) + ": the damage map still lists " + stale
                        + " sectors after a drain and a sweep", null);
            }
        }
        check(false);
    }

    /** Checks made, one per volume and occasion. */
    long checks() {
        return checks;
    }

    /** Checks that found the map listing stale sectors. */
    long checksStale() {
        return checksStale;
    }

    /** Checks of a map flagged consistent. */
    long checksConsistent() {
        return checksConsistent;
    }
}

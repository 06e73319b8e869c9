package io.blockcache.fuzz;

import io.blockcache.loop.Prng;
import io.blockcache.sim.PrefixCheck;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.WritebackOrdering;
import java.util.List;

/**
 * Oracle (f), issue 14 item 2: at random points of the workload, throw the cache device away (in thought: the
 * backing device is only looked at, nothing changes) and check that the backing device alone is the volume as of
 * some FLUSH boundary plus part of the next epoch ({@link PrefixCheck}). It applies to volumes whose writeback
 * keeps epoch order; on the others it runs too, and its violations are only counted: they show the oracle is not
 * vacuous (unordered writeback does break the prefix).
 *
 * <p>Not checked while a volume still holds dirty data of unknown order (epoch 0: recovered after a restart, or
 * dirty when the knob was set; epochs are not persisted, docs/WRITEBACK.md "Epoch ordering"); the check resumes
 * once that data is written back. Draws from its own stream, so that the other draws of a seed are unchanged.
 *
 * <p>Thread rule: the scenario's thread.
 */
final class PrefixOracle {
    /** Chance per control slot (64 loop events) of a check: a few dozen checks per seed. */
    private static final double CHECK_CHANCE = 0.1;

    private final FuzzCacheSet cacheSet;
    private final List<ReferenceModel> models;
    private final Prng prng;
    private long checks;
    private long violationsUnordered;

    PrefixOracle(FuzzCacheSet cacheSet, List<ReferenceModel> models, Prng prng) {
        this.cacheSet = cacheSet;
        this.models = models;
        this.prng = prng;
    }

    /** Maybe checks every volume now; returns null, or what broke on a volume with epoch ordering. */
    String maybeCheck() {
        if (cacheSet.set() == null || !prng.chance(CHECK_CHANCE)) {
            return null;
        }
        for (int v = 0; v < models.size(); v++) {
            Volume volume = cacheSet.volume(v);
            if (volume.index().epochs().oldest() == DirtyEpochs.ORDER_UNKNOWN) {
                continue; // dirty data from before ordering (or a restart) still pending: its order is not known
            }
            String broken = PrefixCheck.check(models.get(v), cacheSet.peekBacking(v));
            boolean ordered = cacheSet.set().writeback(FuzzSetup.volumeName(v)).settings().ordering()
                    == WritebackOrdering.EPOCHS;
            if (ordered) {
                checks++;
                if (broken != null) {
                    return FuzzSetup.volumeName(v) + " (ordering=epochs): the backing device alone is not the volume"
                            + " at any FLUSH boundary: " + broken;
                }
            } else if (broken != null) {
                violationsUnordered++;
            }
        }
        return null;
    }

    /** Checks made on volumes with epoch ordering. */
    long checks() {
        return checks;
    }

    /** Checks on volumes without epoch ordering that found no FLUSH boundary (expected: not a failure). */
    long violationsUnordered() {
        return violationsUnordered;
    }
}

package io.blockcache.fuzz;

import io.blockcache.loop.Prng;
import io.blockcache.sim.PrefixCheck;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.WorkloadDriver;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.WritebackOrdering;
import java.util.ArrayList;
import java.util.List;

/**
 * Oracle (f), prefix consistency: at random points of the workload, throw the cache device away (in thought: the
 * backing device is only looked at, nothing changes) and check that the backing device alone is the volume as of
 * some FLUSH boundary plus part of the next epoch ({@link PrefixCheck}). It applies to volumes whose writeback
 * keeps epoch order; on the others it runs too, and its violations are only counted: they show the oracle is not
 * vacuous (unordered writeback does break the prefix).
 *
 * <p><b>Across restarts.</b> Epochs are persisted (docs/FORMAT.md §5.2), so dirty data recovered after a crash or a
 * clean stop is written back in its old order, and the backing device then moves through states of the history
 * <em>before</em> the restart. The reference model replaces that history at recovery ({@link ReferenceModel#adopt}),
 * so this oracle keeps a copy of each volume's model from before every recovery, labelled with the first epoch of
 * that incarnation, and judges the backing device by the history of the incarnation that wrote the oldest dirty
 * epoch (copies whose epochs are all clean are dropped). Dirty data of unknown order ({@link
 * DirtyEpochs#ORDER_UNKNOWN}) on an ordered volume is itself a violation, unless ordering was switched live since
 * ({@link #orderingSwitched}: then the order of the data dirty at the switch is not known by design, and the check
 * resumes once it is written back), or it comes back in a restart of a volume that was ever switched: the switch to
 * {@code none} voided the epochs on record (docs/FORMAT.md §7 rule 15), so data written back since in that unknown
 * order is dirty again without an epoch when the power cut lost its clean marks.
 *
 * <p>Draws from its own stream, so that the other draws of a seed are unchanged. Thread rule: the scenario's thread.
 */
final class PrefixOracle {
    /** Chance per control slot (64 loop events) of a check: a few dozen checks per seed. */
    private static final double CHECK_CHANCE = 0.1;

    private final FuzzCacheSet cacheSet;
    private final List<ReferenceModel> models;
    private final Prng prng;
    /** Per volume: copies of the model before each recovery whose dirty data may still be written back. */
    private final List<List<Incarnation>> earlier = new ArrayList<>();
    /** Per volume: the first epoch of the running incarnation. */
    private final long[] firstEpoch;
    /** Per volume: ordering was switched live, and data of unknown order may be dirty. */
    private final boolean[] unknownAllowed;
    /** Per volume: live switches of its ordering so far. */
    private final long[] switches;
    /**
     * Per volume: the driver's last step submitted at the latest switch. Writes routed before the switch join the
     * unknown-order epoch whenever they land (docs/WRITEBACK.md), so the allowance lasts until they all have.
     */
    private final long[] switchedAtStep;
    private final List<WorkloadDriver> drivers;
    private long checks;
    private long checksOfEarlierHistory;
    private long violationsUnordered;

    /** The model of an incarnation that ended, and the first epoch its writes took. */
    private record Incarnation(long firstEpoch, ReferenceModel model) {
    }

    PrefixOracle(FuzzCacheSet cacheSet, List<ReferenceModel> models, List<WorkloadDriver> drivers, Prng prng) {
        this.cacheSet = cacheSet;
        this.models = models;
        this.drivers = drivers;
        this.switchedAtStep = new long[models.size()];
        this.prng = prng;
        this.firstEpoch = new long[models.size()];
        this.unknownAllowed = new boolean[models.size()];
        this.switches = new long[models.size()];
        for (int v = 0; v < models.size(); v++) {
            earlier.add(new ArrayList<>());
        }
    }

    /** The cache set was formatted and opened: epochs start here. */
    void started() {
        for (int v = 0; v < models.size(); v++) {
            firstEpoch[v] = cacheSet.volume(v).index().epochs().current();
        }
    }

    /**
     * The cache set was opened again (after a crash or a clean stop), before the models adopt what was read back:
     * keeps each model's history for the recovered dirty data, and drops histories nothing dirty belongs to.
     */
    void reopened() {
        for (int v = 0; v < models.size(); v++) {
            List<Incarnation> chain = earlier.get(v);
            chain.add(new Incarnation(firstEpoch[v], models.get(v).copyAfterCrash()));
            DirtyEpochs epochs = cacheSet.volume(v).index().epochs();
            firstEpoch[v] = epochs.current();
            long oldest = epochs.oldest();
            if (oldest == DirtyEpochs.ORDER_UNKNOWN && switches[v] > 0) {
                // A switch to none voided the epochs on record (docs/FORMAT.md §7 rule 15); data dirty then and
                // written back later in one epoch of unknown order is dirty again if the power cut lost its clean
                // marks, and has no epoch: unknown order again, by design. Never so for a volume never switched.
                unknownAllowed[v] = true;
            }
            if (oldest == DirtyEpochs.NONE || oldest == DirtyEpochs.ORDER_UNKNOWN) {
                chain.clear(); // nothing ordered from before the restart is dirty
                continue;
            }
            while (chain.size() > 1 && chain.get(1).firstEpoch() <= oldest) {
                chain.remove(0); // an incarnation whose every epoch is clean
            }
        }
    }

    /** Ordering of volume {@code v} was switched live: data dirty now has no known order. */
    void orderingSwitched(int v) {
        unknownAllowed[v] = true;
        switches[v]++;
        switchedAtStep[v] = drivers.get(v).lastStep();
    }

    /** Maybe checks every volume now; returns null, or what broke on a volume with epoch ordering. */
    String maybeCheck() {
        if (cacheSet.set() == null || !prng.chance(CHECK_CHANCE)) {
            return null;
        }
        for (int v = 0; v < models.size(); v++) {
            Volume volume = cacheSet.volume(v);
            boolean ordered = cacheSet.set().writeback(FuzzSetup.volumeName(v)).settings().ordering()
                    != WritebackOrdering.NONE;
            long oldest = volume.index().epochs().oldest();
            if (oldest == DirtyEpochs.ORDER_UNKNOWN) {
                if (ordered && !unknownAllowed[v]) {
                    return FuzzSetup.volumeName(v) + " (ordering=" + orderingName(v) + "): dirty data of unknown order,"
                            + " although"
                            + " ordering was not switched live since a known order was last seen (" + switches[v]
                            + " switches in all): its epochs were lost in a restart";
                }
                continue; // dirty when ordering was switched on: its order is not known, by design
            }
            if (ordered && !drivers.get(v).inFlightUpTo(switchedAtStep[v])) {
                unknownAllowed[v] = false; // a write routed before the switch could still land, of unknown order
            }
            List<ReferenceModel> histories = historiesFor(v, oldest);
            java.nio.ByteBuffer backing = cacheSet.peekBackingReplayed(v); // journaled: the log's replay in thought
            String broken = null;
            ReferenceModel fits = null;
            for (ReferenceModel model : histories) {
                String problem = PrefixCheck.check(model, backing);
                if (problem == null) {
                    fits = model;
                    break;
                }
                broken = broken == null ? problem : broken;
            }
            if (ordered) {
                checks++;
                checksOfEarlierHistory += histories.size() > 1 ? 1 : 0;
                if (fits == null) {
                    return FuzzSetup.volumeName(v) + " (ordering=" + orderingName(v) + "): the backing device alone"
                            + " (its log replayed) is not the volume"
                            + " at any FLUSH boundary" + (histories.size() == 1 ? "" : " of the " + histories.size()
                            + " histories since the oldest dirty epoch's incarnation") + ": " + broken;
                }
            } else if (fits == null) {
                violationsUnordered++;
            }
        }
        return null;
    }

    /**
     * The histories the backing device may be a prefix of while {@code oldest} is the oldest dirty epoch: that of the
     * incarnation which wrote it, and every later one. Later ones too, because a crash can lose from the cache what
     * writeback had already put on the backing device: data of a later incarnation written back, and the clean marks
     * of the older data it overwrote, so that older data is dirty again (and rewritten, with the same bytes) while the
     * backing device shows the later incarnation's writes. Each history is one the volume really had.
     */
    private List<ReferenceModel> historiesFor(int v, long oldest) {
        List<Incarnation> chain = earlier.get(v);
        List<ReferenceModel> histories = new ArrayList<>();
        if (oldest != DirtyEpochs.NONE && oldest < firstEpoch[v] && !chain.isEmpty()) {
            int from = 0;
            for (int i = 0; i < chain.size(); i++) {
                if (chain.get(i).firstEpoch() <= oldest) {
                    from = i;
                }
            }
            for (Incarnation incarnation : chain.subList(from, chain.size())) {
                histories.add(incarnation.model());
            }
        }
        histories.add(models.get(v));
        return histories;
    }

    private String orderingName(int v) {
        return cacheSet.set().writeback(FuzzSetup.volumeName(v)).settings().ordering().name()
                .toLowerCase(java.util.Locale.ROOT);
    }

    /** Checks made on volumes with epoch ordering. */
    long checks() {
        return checks;
    }

    /** Of {@link #checks}, those made while recovered epochs were written back (histories before a restart too). */
    long checksOfEarlierHistory() {
        return checksOfEarlierHistory;
    }

    /** Checks on volumes without epoch ordering that found no FLUSH boundary (expected: not a failure). */
    long violationsUnordered() {
        return violationsUnordered;
    }
}

package io.blockcache.gc;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Picks the buckets a GC run's moving GC empties (docs/GC.md, "A GC run" step 2 and "Compaction"), and keeps the
 * compaction rule's one piece of state: whether it is compacting (it starts above {@code compactDirtyPercent} and
 * goes on down to its stop mark).
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class MovingCandidates {
    private final BucketTable table;
    private final Evictor evictor;
    private final int dataBuckets;
    private final GcStats stats;
    private boolean compacting;

    MovingCandidates(BucketTable table, Evictor evictor, int dataBuckets, GcStats stats) {
        this.table = table;
        this.evictor = evictor;
        this.dataBuckets = dataBuckets;
        this.stats = stats;
    }

    /**
     * Moving-GC candidates, two rules on sparse sealed buckets (at most {@code movingLivePercentMax} live), each
     * fewest live sectors first:
     * <ul>
     *   <li><b>Space:</b> while free buckets are short, at most {@code movingBucketsMax} of any kind.</li>
     *   <li><b>Compaction</b> (docs/GC.md "Compaction"): once more than {@code compactDirtyPercent} of the data
     *       buckets hold dirty data, and from then on until that share is down to
     *       {@link GcConfig#COMPACT_HYSTERESIS_PERCENT} points below it, dirty ones: as many as the share is above
     *       the stop mark, moving at most {@code movingBucketsMax} buckets' worth of live data per run.</li>
     * </ul>
     */
    BitSet choose(GcConfig config) {
        BitSet chosen = new BitSet(table.bucketCount());
        if (config.movingBucketsMax() == 0) {
            return chosen;
        }
        int dirtyBuckets = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.dirtySectors(b) > 0) {
                dirtyBuckets++;
            }
        }
        long stopBuckets = (long) dataBuckets * (config.compactDirtyPercent() - GcConfig.COMPACT_HYSTERESIS_PERCENT)
                / 100;
        if (dirtyBuckets * 100L > (long) dataBuckets * config.compactDirtyPercent()) {
            compacting = true;
        } else if (dirtyBuckets <= stopBuckets) {
            compacting = false;
        }
        boolean spaceShort = evictor.freeSoonBuckets() * 100L < (long) dataBuckets * config.movingFreePercentMax();
        if (!spaceShort && !compacting) {
            return chosen; // the common case: no list to build and sort
        }
        int liveMax = table.bucketSectors() * config.movingLivePercentMax() / 100;
        long[] sparse = new long[table.bucketCount()];
        int n = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            int live = table.liveSectors(b);
            if (table.state(b) == BucketState.SEALED && live > 0 && live <= liveMax) {
                sparse[n++] = (long) live << 32 | b;
            }
        }
        Arrays.sort(sparse, 0, n);
        // Each chosen bucket is at most movingLivePercentMax full, so its data takes less than a bucket of the
        // GC write point (which fills its buckets completely): moving always gains space.
        if (spaceShort) {
            for (int i = 0; i < Math.min(n, config.movingBucketsMax()); i++) {
                chosen.set((int) (sparse[i] & 0xFFFF_FFFFL));
            }
        }
        if (compacting) {
            long excess = dirtyBuckets - stopBuckets;
            long liveBudget = (long) config.movingBucketsMax() * table.bucketSectors();
            long compacted = 0;
            for (int i = 0; i < n && excess > 0; i++) {
                int bucket = (int) (sparse[i] & 0xFFFF_FFFFL);
                int live = (int) (sparse[i] >>> 32);
                if (table.dirtySectors(bucket) == 0 || chosen.get(bucket)) {
                    continue;
                }
                if (live > liveBudget) {
                    break;
                }
                liveBudget -= live;
                excess--;
                compacted++;
                chosen.set(bucket);
            }
            stats.addCompacted(compacted);
        }
        return chosen;
    }
}

package io.blockcache.bench.policy;

import io.blockcache.volume.FrequencySketch;
import java.util.HashMap;
import java.util.Map;

/**
 * A log-structured cache with bucket-granular eviction under the engine's rules at their best, as a yardstick
 * (docs/CACHING.md "What bucket granularity costs"): one {@link BucketLog} over the whole capacity; a block hit
 * since it was written is rewritten at the head when its bucket is reused (CacheLib Navy's hit-based reinsertion,
 * done at eviction so that no stale copy is left behind), so this is CLOCK with a bucket-sized hand. With
 * {@code admission}, a miss is admitted as the engine's read admission does it: every miss while the log has room,
 * then only a block the TinyLFU sketch has seen at least twice and more often than the next block to be evicted.
 * Unlike the engine it has no free-bucket margin, one open bucket, no checkpoint reserve and no metadata: every
 * block of the capacity holds live data.
 *
 * <p>Thread rule: one thread.
 */
public final class BucketLogPolicy implements LogPolicy {
    private final Map<Long, Integer> where = new HashMap<>();
    private final BucketLog log;
    private final FrequencySketch sketch;
    private final boolean admission;
    private final int capacityBlocks;

    /** A log of {@code capacityBlocks} (whole buckets, at least one), with TinyLFU admission if {@code admission}. */
    public BucketLogPolicy(int capacityBlocks, boolean admission) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
        this.log = new BucketLog(capacityBlocks / BucketLog.BLOCKS_PER_BUCKET, where, 0,
                (block, count) -> count > 0 ? 0 : -1);
        this.sketch = new FrequencySketch(capacityBlocks, 10L * capacityBlocks);
        this.admission = admission;
    }

    @Override
    public boolean reference(long block) {
        sketch.increment(block);
        Integer code = where.get(block);
        if (code != null) {
            log.hit(code, 1);
            return true;
        }
        if (admission && where.size() >= capacityBlocks - BucketLog.BLOCKS_PER_BUCKET) {
            long victim = log.nextVictim();
            int candidate = sketch.estimate(block);
            if (candidate < 2 || victim >= 0 && candidate <= sketch.estimate(victim)) {
                return false;
            }
        }
        log.append(block, 0);
        return false;
    }

    @Override
    public long rewrittenBlocks() {
        return log.rewrittenBlocks();
    }

    @Override
    public String name() {
        return admission ? "Log+TinyLFU" : "Log";
    }
}

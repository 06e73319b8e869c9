package io.blockcache.gc;

import io.blockcache.loop.Clock;

/**
 * When each bucket was last used, in coarse loop-time ticks: the moment it was opened for writing, then every
 * front-end read hit. Eviction keeps recently used buckets longer. One int per bucket; tick
 * numbers start at 1 so that 0 means "never".
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class BucketRecency {
    private final Clock clock;
    private final long tickNs;
    private final int[] lastUseTick;

    BucketRecency(Clock clock, long tickNs, int bucketCount) {
        this.clock = clock;
        this.tickNs = tickNs;
        this.lastUseTick = new int[bucketCount];
    }

    /** The tick now (at least 1). */
    int nowTick() {
        return (int) Math.min(Integer.MAX_VALUE, clock.nowNs() / tickNs + 1);
    }

    /** Records a use of {@code bucket} now. */
    void touch(int bucket) {
        lastUseTick[bucket] = nowTick();
    }

    /** Ticks since {@code bucket} was last used ({@code nowTick} if never). */
    int ageTicks(int bucket, int nowTick) {
        return nowTick - lastUseTick[bucket];
    }
}

package io.blockcache.cache;

import io.blockcache.loop.Checks;

/**
 * Per-bucket state of one cache device: generation, use, live and dirty sectors. Parallel primitive
 * arrays, one slot per bucket, so a cache of millions of buckets costs a few bytes each.
 *
 * <p>Generations are 16-bit and wrap (docs/FORMAT.md §5.2; the wrap guard: docs/GC.md): bumping a bucket's generation
 * invalidates every key that still points into it. Live and dirty sector counts are kept incrementally by the index
 * listener.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class BucketTable {
    /** {@code values()} once: it clones the array on every call, and state() runs on every unpin (every hit). */
    private static final BucketState[] STATES = BucketState.values();
    /** Generations are 16 bits on disk (see docs/FORMAT.md); arithmetic wraps at this modulus. */
    public static final int GENERATION_MODULUS = 1 << 16;

    private final int bucketCount;
    private final int bucketSectors;
    private final char[] generation;
    private final byte[] state;
    private final int[] liveSectors;
    private final int[] dirtySectors;
    private final int[] pins;

    /**
     * @param bucketCount number of buckets, {@code > 0}
     * @param bucketSectors bucket size in 512-byte sectors, {@code > 0}
     */
    public BucketTable(int bucketCount, int bucketSectors) {
        Checks.check(bucketCount > 0, "bucketCount must be positive: %s", bucketCount);
        Checks.check(bucketSectors > 0, "bucketSectors must be positive: %s", bucketSectors);
        this.bucketCount = bucketCount;
        this.bucketSectors = bucketSectors;
        this.generation = new char[bucketCount];
        this.state = new byte[bucketCount];
        this.liveSectors = new int[bucketCount];
        this.dirtySectors = new int[bucketCount];
        this.pins = new int[bucketCount];
    }

    /** Number of buckets. */
    public int bucketCount() {
        return bucketCount;
    }

    /** Bucket size in sectors. */
    public int bucketSectors() {
        return bucketSectors;
    }

    /** Current generation of {@code bucket}, 0..65535. */
    public int generation(int bucket) {
        return generation[checkBucket(bucket)];
    }

    /** Sets the generation (recovery applies durable generations with this). */
    public void setGeneration(int bucket, int newGeneration) {
        Checks.check(newGeneration >= 0 && newGeneration < GENERATION_MODULUS,
                "generation out of range: %s", newGeneration);
        generation[checkBucket(bucket)] = (char) newGeneration;
    }

    /** Advances the generation of {@code bucket} by one (wrapping) and returns the new value. */
    public int bumpGeneration(int bucket) {
        int next = (generation[checkBucket(bucket)] + 1) % GENERATION_MODULUS;
        generation[bucket] = (char) next;
        return next;
    }

    /** Current use of {@code bucket}. */
    public BucketState state(int bucket) {
        return STATES[state[checkBucket(bucket)]];
    }

    /** Sets the use of {@code bucket}; the caller enforces the transition rules. */
    public void setState(int bucket, BucketState newState) {
        state[checkBucket(bucket)] = (byte) newState.ordinal();
    }

    /** Sectors of {@code bucket} that live index keys point at. */
    public int liveSectors(int bucket) {
        return liveSectors[checkBucket(bucket)];
    }

    /** Sectors of {@code bucket} that live dirty keys point at. */
    public int dirtySectors(int bucket) {
        return dirtySectors[checkBucket(bucket)];
    }

    /** Adds (or with a negative delta removes) live sectors; checks the count stays in [0, bucketSectors]. */
    public void addLive(int bucket, int deltaSectors, boolean dirty) {
        int live = liveSectors[checkBucket(bucket)] + deltaSectors;
        Checks.check(live >= 0 && live <= bucketSectors, "bucket %s live sectors out of range: %s", bucket, live);
        liveSectors[bucket] = live;
        if (dirty) {
            addDirty(bucket, deltaSectors);
        }
    }

    /** Adds (or removes) dirty sectors without changing live ones (a clean marking or a re-dirtying). */
    public void addDirty(int bucket, int deltaSectors) {
        int dirtyNow = dirtySectors[checkBucket(bucket)] + deltaSectors;
        Checks.check(dirtyNow >= 0 && dirtyNow <= liveSectors[bucket],
                "bucket %s dirty sectors out of range: %s (live %s)", bucket, dirtyNow, liveSectors[bucket]);
        dirtySectors[bucket] = dirtyNow;
    }

    /**
     * Marks one more reader (a front-end read or writeback read in flight) of {@code bucket}: a pinned bucket
     * is never reused, so an in-flight read can never see another extent's data.
     */
    public void pin(int bucket) {
        pins[checkBucket(bucket)]++;
    }

    /** Ends one {@link #pin}; returns the number of pins left. */
    public int unpin(int bucket) {
        Checks.check(pins[checkBucket(bucket)] > 0, "bucket %s unpinned more often than pinned", bucket);
        return --pins[bucket];
    }

    /** Number of readers in flight on {@code bucket}. */
    public int pins(int bucket) {
        return pins[checkBucket(bucket)];
    }

    /** Counts buckets in {@code wanted} state. O(buckets): for statistics and checks, not the I/O path. */
    public int count(BucketState wanted) {
        int n = 0;
        byte ordinal = (byte) wanted.ordinal();
        for (byte s : state) {
            if (s == ordinal) {
                n++;
            }
        }
        return n;
    }

    private int checkBucket(int bucket) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of range [0, %s)", bucket, bucketCount);
        return bucket;
    }
}

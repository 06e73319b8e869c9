package io.blockcache.bench.policy;

import java.util.List;
import java.util.function.IntFunction;

/** The policies {@code bench hitratio} compares, by name, and their shared argument check. */
public final class Policies {
    private Policies() {
    }

    /** Every classic policy (not Belady's, which needs the future) with its constructor. */
    public static List<Named> classic() {
        return List.of(new Named("LRU", LruPolicy::new), new Named("CLOCK", ClockPolicy::new),
                new Named("ARC", ArcPolicy::new), new Named("2Q", TwoQueuePolicy::new),
                new Named("S3-FIFO", S3FifoPolicy::new), new Named("SIEVE", SievePolicy::new),
                new Named("W-TinyLFU", WTinyLfuPolicy::new));
    }

    /**
     * The yardsticks for a log-structured cache (bucket-granular eviction, docs/CACHING.md "What bucket
     * granularity costs"), fresh, of {@code capacityBlocks}.
     */
    public static List<LogPolicy> logs(int capacityBlocks) {
        return List.of(new BucketLogPolicy(capacityBlocks, false), new BucketLogPolicy(capacityBlocks, true),
                new S3FifoLogPolicy(capacityBlocks));
    }

    /** A policy's name and how to make one of a given capacity in blocks. */
    public record Named(String name, IntFunction<CachePolicy> factory) {
    }

    static int checkCapacity(int capacityBlocks) {
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacity must be at least 1 block: " + capacityBlocks);
        }
        return capacityBlocks;
    }
}

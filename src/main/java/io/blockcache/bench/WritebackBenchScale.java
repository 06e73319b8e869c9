package io.blockcache.bench;

/**
 * How big the writeback experiments are. {@link #quick()} finishes in well under a minute of wall time (CI, the
 * test); {@link #full()} is what docs/BENCHMARKS.md reports.
 *
 * @param cacheBytes SSD model size; holds every dirty set with room to spare
 * @param idleDrainBytes dirty bytes of the idle-drain set (4–64 KiB extents over the whole disk), write cache off
 * @param idleDrainCacheOnBytes the same with the disk's write cache on (the secondary case, smaller to save time)
 * @param busyDirtyBytes dirty bytes present during the busy window
 * @param busyWindowNs length of the busy window (ends before the set is dirty_expire old)
 * @param sweepBytes dirty bytes per block size in the sweep
 * @param sweepBlockBytes the block sizes of the sweep
 * @param burstCount bursts in the burst experiment
 * @param burstWriteIntervalNs one write every this long during a burst
 * @param objectStoreRegionBytes the region rewritten whole (in 4–64 KiB extents) in the object-store experiment
 * @param objectStoreSparseBytes dirty bytes of the object store's sparse set (4–64 KiB extents over the whole store)
 * @param sustainedCacheBytes SSD model size of the sustained-overload experiment; its writes span the same size, more
 *     than the dirty data the cache takes before the throttle and the cutoffs act
 * @param sustainedWarmNs simulated time before the sustained experiment's window (the dirty share settles)
 * @param sustainedWindowNs the sustained experiment's measured window
 */
record WritebackBenchScale(long cacheBytes, long idleDrainBytes, long idleDrainCacheOnBytes,
                           long busyDirtyBytes, long busyWindowNs,
                           long sweepBytes, int[] sweepBlockBytes, int burstCount, long burstWriteIntervalNs,
                           long objectStoreRegionBytes, long objectStoreSparseBytes,
                           long sustainedCacheBytes, long sustainedWarmNs, long sustainedWindowNs) {
    private static final long MIB = 1L << 20;
    private static final long SECOND = 1_000_000_000L;
    private static final int KIB = 1024;

    static WritebackBenchScale quick() {
        return new WritebackBenchScale(256 * MIB, 8 * MIB, 8 * MIB, 8 * MIB, 5 * SECOND, 4 * MIB,
                new int[] {8 * KIB, 64 * KIB, 1024 * KIB}, 2, 40_000_000L, 64 * MIB, 4 * MIB,
                128 * MIB, 10 * SECOND, 5 * SECOND);
    }

    static WritebackBenchScale full() {
        return new WritebackBenchScale(4096 * MIB, 1024 * MIB, 256 * MIB, 128 * MIB, 20 * SECOND, 64 * MIB,
                new int[] {8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, 1024 * KIB}, 4,
                10_000_000L, 1024 * MIB, 64 * MIB, 1024 * MIB, 60 * SECOND, 120 * SECOND);
    }
}

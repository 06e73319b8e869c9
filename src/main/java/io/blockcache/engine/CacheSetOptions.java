package io.blockcache.engine;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.volume.CacheMode;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Settings of a cache set, validated once here. Geometry fields apply when formatting; the rest when
 * opening.
 *
 * @param bucketSizeBytes bucket size, a power of two in [128 KiB, 8 MiB]; default 1 MiB (bcache's default
 *     order of magnitude: big enough for sequential SSD writes, small enough to reclaim)
 * @param journalBuckets buckets in the journal ring, 0 for automatic (1/128 of the buckets, 4..64)
 * @param journalDelayNs how long records may wait before a group commit; default 100 ms (bcache's
 *     journal_delay_ms)
 * @param journalEntryBytesMax the largest journal entry; default 256 KiB (a commit never writes more at once)
 * @param mode the initial cache mode of every volume
 * @param verifyIndexEachOperation run the index's whole-structure check after every change (tests only)
 * @param damageMap keep each backing device's damage map (docs/FORMAT.md §4.1): off by default, because with it
 *     on a write-back write into an unmarked region fails while the backing device is unreachable, a trade-off
 *     not decided yet
 * @param backingFence null, or asked before every backing write and flush: null lets it pass, else the reason it is
 *     refused ({@code device.FencedDevice}; a replicated volume's server that lost its lease, docs/SCALE.md)
 * @param cleanCoverIntervalNs how often clean copies are covered by a backing flush so that they survive a crash
 *     (docs/FORMAT.md §7 rule 10, {@code engine.CoverageFlusher}); default 1 s; 0 = never (every clean copy is dropped
 *     after an unclean stop, as before 2026-12-07). Not a knob: the simulator and the tests shorten it
 */
public record CacheSetOptions(int bucketSizeBytes, int journalBuckets, long journalDelayNs, int journalEntryBytesMax,
                              CacheMode mode, boolean verifyIndexEachOperation, boolean damageMap,
                              Supplier<String> backingFence, long cleanCoverIntervalNs) {
    public CacheSetOptions {
        if (bucketSizeBytes < CacheSuperblock.BUCKET_SIZE_BYTES_MIN
                || bucketSizeBytes > CacheSuperblock.BUCKET_SIZE_BYTES_MAX
                || Integer.bitCount(bucketSizeBytes) != 1) {
            throw new IllegalArgumentException("bucket size must be a power of two in [128 KiB, 8 MiB]: "
                    + bucketSizeBytes);
        }
        if (journalBuckets < 0 || journalBuckets > 1024) {
            throw new IllegalArgumentException("journalBuckets must be in [0, 1024] (0 = automatic): "
                    + journalBuckets);
        }
        if (journalDelayNs < 0 || journalDelayNs > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalArgumentException("journal delay must be in [0, 60 s]: " + journalDelayNs + " ns");
        }
        if (journalEntryBytesMax < 64 * 1024 || journalEntryBytesMax % 4096 != 0
                || journalEntryBytesMax > bucketSizeBytes) {
            throw new IllegalArgumentException("journalEntryBytesMax must be a multiple of 4 KiB in [64 KiB, "
                    + "bucket size]: " + journalEntryBytesMax);
        }
        if (cleanCoverIntervalNs < 0 || cleanCoverIntervalNs > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalArgumentException("clean cover interval must be in [0, 60 s]: " + cleanCoverIntervalNs
                    + " ns");
        }
        if (mode == null) {
            throw new IllegalArgumentException("mode must be set");
        }
    }

    /**
     * One round a second: what a crash costs (at most the last second's fills, refilled by misses) against one backing
     * flush a second while fills arrive; far below the time a warm cache takes to refill.
     */
    public static final long CLEAN_COVER_INTERVAL_NS_DEFAULT = 1_000_000_000L;

    /** Defaults: 1 MiB buckets, automatic journal size, 100 ms journal delay, write-back. */
    public static CacheSetOptions defaults() {
        return new CacheSetOptions(CacheSuperblock.BUCKET_SIZE_BYTES_DEFAULT, 0, TimeUnit.MILLISECONDS.toNanos(100),
                256 * 1024, CacheMode.WRITEBACK, false, false, null, CLEAN_COVER_INTERVAL_NS_DEFAULT);
    }

    /** A copy with another bucket size. */
    public CacheSetOptions withBucketSizeBytes(int newBucketSizeBytes) {
        return new CacheSetOptions(newBucketSizeBytes, journalBuckets, journalDelayNs,
                Math.min(journalEntryBytesMax, newBucketSizeBytes), mode, verifyIndexEachOperation, damageMap,
                backingFence, cleanCoverIntervalNs);
    }

    /** A copy with another journal size (0 = automatic). */
    public CacheSetOptions withJournalBuckets(int newJournalBuckets) {
        return new CacheSetOptions(bucketSizeBytes, newJournalBuckets, journalDelayNs, journalEntryBytesMax, mode,
                verifyIndexEachOperation, damageMap, backingFence, cleanCoverIntervalNs);
    }

    /** A copy with the index self-check switched on or off. */
    public CacheSetOptions withVerifyIndex(boolean verify) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, journalDelayNs, journalEntryBytesMax, mode, verify,
                damageMap, backingFence, cleanCoverIntervalNs);
    }

    /** A copy with another group-commit delay. */
    public CacheSetOptions withJournalDelayNs(long newJournalDelayNs) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, newJournalDelayNs, journalEntryBytesMax, mode,
                verifyIndexEachOperation, damageMap, backingFence, cleanCoverIntervalNs);
    }

    /** A copy with another initial cache mode. */
    public CacheSetOptions withMode(CacheMode newMode) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, journalDelayNs, journalEntryBytesMax, newMode,
                verifyIndexEachOperation, damageMap, backingFence, cleanCoverIntervalNs);
    }

    /** A copy whose backing devices are fenced by {@code fence} (see {@code backingFence} above). */
    public CacheSetOptions withBackingFence(Supplier<String> fence) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, journalDelayNs, journalEntryBytesMax, mode,
                verifyIndexEachOperation, damageMap, fence, cleanCoverIntervalNs);
    }

    /** A copy with the damage map switched on or off (see {@code damageMap} above). */
    public CacheSetOptions withDamageMap(boolean on) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, journalDelayNs, journalEntryBytesMax, mode,
                verifyIndexEachOperation, on, backingFence, cleanCoverIntervalNs);
    }

    /** A copy with another clean cover interval (see {@code cleanCoverIntervalNs} above). */
    public CacheSetOptions withCleanCoverIntervalNs(long newIntervalNs) {
        return new CacheSetOptions(bucketSizeBytes, journalBuckets, journalDelayNs, journalEntryBytesMax, mode,
                verifyIndexEachOperation, damageMap, backingFence, newIntervalNs);
    }
}

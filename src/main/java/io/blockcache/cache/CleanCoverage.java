package io.blockcache.cache;

import io.blockcache.loop.Checks;
import java.util.BitSet;

/**
 * Which clean data survives an unclean stop (docs/FORMAT.md §7 rule 10): per bucket, the prefix of its current
 * generation whose clean extents are copies of data that a completed backing flush made durable, and whose record
 * saying so ({@code CleanCovered}) has been appended to the journal. Also the one flag that orders backing writes
 * after that record: {@link #hazard}.
 *
 * <p>Why a prefix of a bucket, not a bit per extent: clean copies (read-miss fills, write-through copies, prefetch)
 * go to the clean write point, which reserves their space only after their backing read or write completed; so the
 * part of the clean write point's buckets reserved before a backing flush was issued is exactly what that flush
 * covers (rule 7), and the index needs no bit of its own (it has none left: {@code index.ExtentLocation}).
 *
 * <p><b>The hazard.</b> A covered clean extent is a promise about the backing device; it must leave the journal
 * before the backing data under it changes. The index tells {@link #removedClean} about every clean piece leaving
 * a bucket (removed, overwritten or moved, always right after its journal record was appended: journal first, then
 * apply); if the bucket is covered, {@link #hazard} is raised, and {@code volume.CoveredWriteGate} makes the next
 * backing data write wait for a journal commit first.
 *
 * <p>Memory: 2 bytes and 1 bit per bucket, and the seals between two backing flushes (at most {@link
 * #SEALED_MAX}).
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class CleanCoverage {
    /**
     * Sealed clean buckets remembered between two covering flushes. Beyond it the oldest are forgotten: they stay
     * uncovered (one miss each after a crash), never wrongly covered. 4096 buckets = 4 GiB of fills at 1 MiB buckets
     * between two flushes, a second apart.
     */
    public static final int SEALED_MAX = 4096;

    private final BucketTable table;
    private final short[] coveredSectors;
    /**
     * Buckets that may have records in the journal under their current generation from before this open (recovery
     * frees empty buckets without a bump): their first allocation journals their generation again, so that a later
     * replay never applies an old coverage record, or trusts an old clean record, over their new data.
     */
    private final BitSet recordedBeforeOpen = new BitSet();
    /** Buckets from which an unclean open dropped untrusted clean extents (held back: BucketAllocator). */
    private final BitSet droppedAtOpen = new BitSet();
    private final int[] sealedBucket = new int[SEALED_MAX];
    private final int[] sealedGeneration = new int[SEALED_MAX];
    private final int[] sealedSectors = new int[SEALED_MAX];
    private int sealedCount;
    private boolean hazard;

    /** Coverage for the buckets of {@code table}; nothing covered. */
    public CleanCoverage(BucketTable table) {
        this.table = table;
        this.coveredSectors = new short[table.bucketCount()];
    }

    /** Sectors from the start of {@code bucket} covered under its current generation; 0: none. */
    public int coveredSectors(int bucket) {
        return coveredSectors[bucket] & 0xFFFF;
    }

    /**
     * Records that {@code bucket} is covered up to {@code sectors} under its current generation (a CleanCovered
     * record was appended, or replay met one of the bucket's generation). Coverage only grows within a generation.
     */
    public void cover(int bucket, int sectors) {
        Checks.check(sectors >= 0 && sectors <= table.bucketSectors(), "bucket %s covered to %s sectors", bucket,
                sectors);
        if (sectors > coveredSectors(bucket)) {
            coveredSectors[bucket] = (short) sectors;
        }
    }

    /** The bucket gets a new generation or new data: nothing in it is covered any more. */
    public void forget(int bucket) {
        coveredSectors[bucket] = 0;
    }

    /** True if the clean extent at {@code offsetInBucketSectors}, {@code lengthSectors} long, lies in the cover. */
    public boolean trusts(int bucket, int generation, int offsetInBucketSectors, int lengthSectors) {
        return table.generation(bucket) == generation
                && offsetInBucketSectors + lengthSectors <= coveredSectors(bucket);
    }

    /**
     * Told by the index (through {@link CacheSpace}) that clean sectors of {@code bucket} under {@code generation}
     * left the index; raises the hazard if they may be covered.
     */
    public void removedClean(int bucket, int generation) {
        if (coveredSectors[bucket] != 0 && table.generation(bucket) == generation) {
            hazard = true;
        }
    }

    /** Takes the hazard: true if a covered clean piece left the index since the last call. */
    public boolean takeHazard() {
        boolean was = hazard;
        hazard = false;
        return was;
    }

    /** An unclean open dropped an untrusted clean extent of {@code bucket}. */
    public void dropped(int bucket) {
        droppedAtOpen.set(bucket);
    }

    boolean droppedAtOpen(int bucket) {
        return droppedAtOpen.get(bucket);
    }

    void clearDropped() {
        droppedAtOpen.clear();
    }

    /** After an open: every bucket may have journal records of its current generation from before it. */
    public void markRecordedBeforeOpen() {
        recordedBeforeOpen.set(0, table.bucketCount());
    }

    /**
     * The allocator hands {@code bucket} out: forgets its coverage; returns true if its generation must be journaled
     * again first (it has coverage or may have records from before this open).
     */
    boolean handingOut(int bucket) {
        boolean mustRecord = coveredSectors[bucket] != 0 || recordedBeforeOpen.get(bucket);
        hazard |= coveredSectors[bucket] != 0; // its record ends a coverage, as a bump does
        recordedBeforeOpen.clear(bucket);
        coveredSectors[bucket] = 0;
        return mustRecord;
    }

    /**
     * The bucket's generation was bumped (and the bump journaled): every key in it is stale, so its covered clean
     * copies left the index as if removed, and the bump is the record that must be durable before a backing write
     * may change their data (found by the fuzz, seed 16 of 2026-12-07: an eviction's bump was still in memory when
     * a write-zeroes, finding only stale keys, zeroed the backing device under a covered copy).
     */
    void bumped(int bucket) {
        recordedBeforeOpen.clear(bucket);
        if (coveredSectors[bucket] != 0) {
            hazard = true;
        }
        coveredSectors[bucket] = 0;
    }

    /** The clean write point sealed {@code bucket} with {@code fillSectors} reserved: cover it at the next flush. */
    void sealed(int bucket, int fillSectors) {
        if (fillSectors == 0) {
            return;
        }
        if (sealedCount == SEALED_MAX) {
            System.arraycopy(sealedBucket, 1, sealedBucket, 0, SEALED_MAX - 1);
            System.arraycopy(sealedGeneration, 1, sealedGeneration, 0, SEALED_MAX - 1);
            System.arraycopy(sealedSectors, 1, sealedSectors, 0, SEALED_MAX - 1);
            sealedCount--;
        }
        sealedBucket[sealedCount] = bucket;
        sealedGeneration[sealedCount] = table.generation(bucket);
        sealedSectors[sealedCount] = fillSectors;
        sealedCount++;
    }

    /**
     * What a backing flush issued now will cover: the buckets sealed since the last call and the reserved part of
     * the clean write point's open bucket. Call just before issuing the flush of every backing device; hand the
     * result to {@link #flushed} if all of them succeed, or to {@link #flushFailed}.
     */
    public Snapshot snapshot(WritePoint cleanWritePoint) {
        int open = cleanWritePoint.openBucket();
        int extra = open >= 0 && cleanWritePoint.fillSectors() > 0 ? 1 : 0;
        Snapshot snapshot = new Snapshot(sealedCount + extra);
        for (int i = 0; i < sealedCount; i++) {
            snapshot.add(sealedBucket[i], sealedGeneration[i], sealedSectors[i]);
        }
        if (extra == 1) {
            snapshot.add(open, table.generation(open), cleanWritePoint.fillSectors());
        }
        sealedCount = 0;
        return snapshot;
    }

    /** The flush failed: the sealed buckets of {@code snapshot} wait for the next one. */
    public void flushFailed(Snapshot snapshot, WritePoint cleanWritePoint) {
        for (int i = 0; i < snapshot.count; i++) {
            if (snapshot.bucket[i] != cleanWritePoint.openBucket()) {
                sealed(snapshot.bucket[i], snapshot.sectors[i]);
            }
        }
    }

    /** True if anything was reserved at the clean write point since the last snapshot. */
    public boolean anythingToCover(WritePoint cleanWritePoint) {
        int open = cleanWritePoint.openBucket();
        return sealedCount > 0 || (open >= 0 && cleanWritePoint.fillSectors() > coveredSectors(open));
    }

    /** Buckets and reserved prefixes a flush covers, each under the generation it had when the flush was issued. */
    public static final class Snapshot {
        private final int[] bucket;
        private final int[] generation;
        private final int[] sectors;
        private int count;

        Snapshot(int capacity) {
            bucket = new int[capacity];
            generation = new int[capacity];
            sectors = new int[capacity];
        }

        private void add(int b, int g, int s) {
            bucket[count] = b;
            generation[count] = g;
            sectors[count] = s;
            count++;
        }

        /** Entries in the snapshot. */
        public int count() {
            return count;
        }

        /** The bucket of entry {@code i}. */
        public int bucket(int i) {
            return bucket[i];
        }

        /** The generation of entry {@code i}'s bucket when the flush was issued. */
        public int generation(int i) {
            return generation[i];
        }

        /** The covered prefix of entry {@code i}, in sectors. */
        public int sectors(int i) {
            return sectors[i];
        }
    }
}

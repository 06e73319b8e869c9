package io.blockcache.cache;

import io.blockcache.loop.Checks;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.function.IntSupplier;
import io.blockcache.journal.GenerationJournal;

/**
 * Hands out free buckets and takes emptied ones back, enforcing the reuse rule of docs/FORMAT.md §7 rule 2: a bucket's
 * generation bump is durable in the journal before the bucket is written again, so that after a crash every
 * key that still points into the old contents reads as stale.
 *
 * <p>Order: the bucket freed most recently first, then round-robin from a cursor over the buckets never freed
 * since start (deterministic either way). Why warm first: on a buffered cache file, a freed bucket's pages are
 * still in the page cache, and writing it again overwrites resident pages, where a bucket written for the first
 * time makes the kernel allocate a page per 4 KiB. On the development VM that allocation costs ~5 µs per 4 KiB
 * (the host backs each newly allocated guest page, and free guest memory is handed back to it), an overwrite
 * ~1.3 µs (docs/bench-history/nbd.md "2026-12-02: a log-structured cache on fresh pages"); a log-structured cache
 * writing round-robin paid the former for every write of its first lap over the device. On flash the order does not
 * matter (the device remaps). An emptied bucket is reusable only when it is sealed, holds no live sectors and no reader
 * has it pinned.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class BucketAllocator {
    private final BucketTable table;
    private final GenerationJournal journal;
    private final BitSet free;
    private final ArrayDeque<PendingReuse> pendingReuse = new ArrayDeque<>();
    private int cursor;
    /** Buckets freed since start, most recent on top; every one of them is free (only allocate takes them). */
    private final int[] warm;
    private int warmCount;
    private int freeCount;
    /** Buckets in state METADATA: the durable checkpoint's, the one being written, the writer's spares. */
    private int metadataBuckets;
    /** Where the reserve comes from: a fixed number, or a size from the extents now. */
    private IntSupplier reserveNow = () -> 0;
    /** The largest reserve since the newest durable checkpoint; the one being written needs no more. */
    private int reserveSinceDurableBuckets;
    /** The largest reserve while the newest durable checkpoint was written: it and the next fit in it. */
    private int reserveOfDurableBuckets;
    private long metadataAllocationsRefused;
    private long bucketsReleased;
    private long allocationFailures;
    private Runnable reuseWanted = () -> { };
    private long bucketsEvicted;
    private final BitSet releaseRefused;
    private BucketObserver observer = BucketObserver.NONE;
    private BumpGuard bumpGuard = BumpGuard.ALLOW_ALL;
    private final BlockChecksums blockChecksums;
    /** Per bucket, {@link #opened} when it was last opened for writing: how old its data is, in bucket opens. */
    private final long[] openedAt;
    private long opened;
    private final CleanCoverage cleanCoverage;
    private final BitSet quarantined = new BitSet();

    private record PendingReuse(int bucket, long journalSequence) {
    }

    /**
     * Creates an allocator over {@code table}; buckets already in state {@link BucketState#FREE} are free.
     */
    public BucketAllocator(BucketTable table, GenerationJournal journal) {
        this.table = table;
        this.journal = journal;
        this.free = new BitSet(table.bucketCount());
        this.warm = new int[table.bucketCount()];
        this.releaseRefused = new BitSet(table.bucketCount());
        this.blockChecksums = new BlockChecksums(table.bucketCount(), table.bucketSectors());
        this.openedAt = new long[table.bucketCount()];
        this.cleanCoverage = new CleanCoverage(table);
        countStates();
    }

    private void countStates() {
        metadataBuckets = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.FREE) {
                free.set(b);
                freeCount++;
            } else if (table.state(b) == BucketState.METADATA) {
                metadataBuckets++;
            }
        }
    }

    /**
     * Rebuilds the free set from the table's states: recovery sets every bucket's state after replay, then
     * calls this once.
     */
    public void rebuildFreeSet() {
        Checks.check(pendingReuse.isEmpty(), "free set rebuilt with %s buckets pending reuse", pendingReuse.size());
        free.clear();
        freeCount = 0;
        warmCount = 0; // after a restart, which pages the page cache still holds is unknown
        countStates();
    }

    /**
     * Takes a free bucket for {@code purpose} ({@link BucketState#OPEN} or {@link BucketState#METADATA}). Data
     * (OPEN) never takes the last {@link #metadataReserveBuckets()} free buckets; metadata never holds more than that
     * many buckets in all, so that no failing or repeated checkpoint can turn the free buckets into metadata
     * (found 2026-12-07: on a full file system every free bucket became a failed checkpoint's, and stayed so).
     *
     * @return the bucket index, or -1 if none is free
     */
    public int allocate(BucketState purpose) {
        Checks.check(purpose == BucketState.OPEN || purpose == BucketState.METADATA,
                "buckets are allocated only to be OPEN or METADATA, not %s", purpose);
        int reserveBuckets = metadataReserveBuckets();
        if (purpose == BucketState.OPEN && freeCount <= reserveBuckets) {
            return refuseAllocation(purpose); // the last buckets are kept for checkpoints, which free the journal
        }
        boolean metadataFull = reserveBuckets > 0 && metadataBuckets >= reserveBuckets;
        if (purpose == BucketState.METADATA && metadataFull) {
            metadataAllocationsRefused++;
            return -1; // two checkpoints' worth is all metadata ever needs (Geometry.metadataReserveBuckets)
        }
        int bucket = warmCount > 0 ? warm[--warmCount] : takeFromCursor();
        if (bucket < 0) {
            return refuseAllocation(purpose);
        }
        free.clear(bucket);
        freeCount--;
        Checks.check(table.liveSectors(bucket) == 0 && table.pins(bucket) == 0,
                "free bucket %s still holds live sectors or readers", bucket);
        table.setState(bucket, purpose);
        boolean coverageRecorded = cleanCoverage.handingOut(bucket);
        if (blockChecksums.anyKnown(bucket) || coverageRecorded) {
            // Recovery left it free in the generation it was last written under, with the block CRCs the replay gave
            // it; a later replay would give them again, over the new data. A BucketGeneration record of the same
            // generation makes replay forget them there (docs/FORMAT.md §5.2 type 9), in order with what follows.
            // The same for clean coverage and clean records of this generation from before the open (§7 rule 10): a
            // later replay would trust them over the new data.
            journal.recordGeneration(bucket, table.generation(bucket));
        }
        blockChecksums.forget(bucket); // already forgotten at the bump; again, as the bucket is about to be written
        if (purpose == BucketState.OPEN) {
            openedAt[bucket] = ++opened;
            observer.onAllocated(bucket);
        } else {
            metadataBuckets++;
        }
        return bucket;
    }

    /** The next free bucket round-robin from the cursor, or -1; called only when no freed bucket is waiting. */
    private int takeFromCursor() {
        int bucket = free.nextSetBit(cursor);
        if (bucket < 0) {
            bucket = free.nextSetBit(0);
            if (bucket < 0) {
                return -1;
            }
        }
        cursor = bucket + 1 == table.bucketCount() ? 0 : bucket + 1;
        return bucket;
    }

    private int refuseAllocation(BucketState purpose) {
        if (purpose == BucketState.OPEN) {
            allocationFailures++;
            observer.onAllocationFailed();
        }
        if (!pendingReuse.isEmpty()) {
            // Buckets are waiting only for their generation bump to become durable: ask for that now rather
            // than after the journal delay, so a cache that was just cleaned takes writes again at once.
            reuseWanted.run();
        }
        return -1;
    }

    /**
     * Sets what to do when an allocation fails while emptied buckets wait for their generation bumps to be
     * durable: normally, commit the journal now.
     */
    public void setReuseWanted(Runnable action) {
        reuseWanted = action;
    }

    /** Seals an open bucket (a write point moves on) and releases it at once if nothing in it is live. */
    public void seal(int bucket) {
        Checks.check(table.state(bucket) == BucketState.OPEN, "sealing bucket %s in state %s", bucket,
                table.state(bucket));
        table.setState(bucket, BucketState.SEALED);
        releaseIfEmpty(bucket);
    }

    /**
     * Releases {@code bucket} if it is sealed, holds no live sectors and no reader has it pinned: bumps its
     * generation, journals the bump, and queues it until the journal entry is durable. Call whenever one of those
     * conditions may have become true. A release the bump guard refuses waits for {@link #retryRefusedReleases}.
     * Metadata buckets are given back by {@link #releaseMetadata} only, never here.
     *
     * @return true if the bucket was released
     */
    public boolean releaseIfEmpty(int bucket) {
        if (table.state(bucket) != BucketState.SEALED || table.liveSectors(bucket) != 0 || table.pins(bucket) != 0) {
            return false;
        }
        if (!bumpGuard.mayBump(bucket)) {
            releaseRefused.set(bucket);
            observer.onReleaseRefused(bucket);
            return false;
        }
        releaseRefused.clear(bucket);
        bumpAndQueue(bucket);
        return true;
    }

    /**
     * Gives back a metadata bucket that the checkpoint writer no longer needs, through the journaled reuse path like
     * any release. If the bump guard refuses, nothing changes and the caller keeps the bucket (the checkpoint writer
     * writes its next checkpoint into it): a refused metadata bucket waiting for a checkpoint would be a bucket lost
     * to every checkpoint that could move the guard's floor.
     *
     * @return true if the bucket was released, false if the caller still owns it
     */
    public boolean releaseMetadata(int bucket) {
        Checks.check(table.state(bucket) == BucketState.METADATA, "bucket %s released as metadata is %s", bucket,
                table.state(bucket));
        Checks.check(table.liveSectors(bucket) == 0 && table.pins(bucket) == 0,
                "metadata bucket %s holds live sectors or readers", bucket);
        if (!bumpGuard.mayBump(bucket)) {
            return false;
        }
        metadataBuckets--;
        bumpAndQueue(bucket);
        return true;
    }

    /**
     * Evicts a sealed bucket that holds only clean data: bumps its generation through the journaled path, so
     * every key in it turns stale at once, and resets its counts. Refused (false) for a bucket that is not
     * SEALED, holds dirty sectors, is pinned by a reader or writer, or whose generation may not be bumped yet.
     * Dirty data is never evicted (docs/ARCHITECTURE.md §5 item 4).
     *
     * @return true if the bucket was evicted and is now waiting for its bump to be durable
     */
    public boolean evict(int bucket) {
        if (table.state(bucket) != BucketState.SEALED || table.dirtySectors(bucket) != 0 || table.pins(bucket) != 0) {
            return false;
        }
        if (!bumpGuard.mayBump(bucket)) {
            observer.onReleaseRefused(bucket); // so that GC moves the guard's bound on
            return false;
        }
        table.addLive(bucket, -table.liveSectors(bucket), false);
        observer.onCountsChanged(bucket);
        bumpAndQueue(bucket);
        bucketsEvicted++;
        return true;
    }

    /**
     * Retries every release that the bump guard refused; garbage collection calls it once the guard's bound
     * has moved. Returns the buckets released.
     */
    public int retryRefusedReleases() {
        int released = 0;
        for (int b = releaseRefused.nextSetBit(0); b >= 0; b = releaseRefused.nextSetBit(b + 1)) {
            releaseRefused.clear(b);
            if (releaseIfEmpty(b)) {
                released++;
            }
        }
        return released;
    }

    /** Empty buckets waiting for the bump guard to allow their release. */
    public int releaseRefusedBuckets() {
        return releaseRefused.cardinality();
    }

    private void bumpAndQueue(int bucket) {
        int generation = table.bumpGeneration(bucket);
        blockChecksums.forget(bucket); // the bytes its entries checked are stale from now on
        cleanCoverage.bumped(bucket);
        long sequence = journal.recordGeneration(bucket, generation);
        table.setState(bucket, BucketState.REUSE_PENDING);
        Checks.check(pendingReuse.isEmpty() || pendingReuse.peekLast().journalSequence() <= sequence,
                "journal sequences must not go backwards: %s after %s", sequence,
                pendingReuse.isEmpty() ? -1 : pendingReuse.peekLast().journalSequence());
        pendingReuse.addLast(new PendingReuse(bucket, sequence));
        bucketsReleased++;
    }

    /** Tells {@code newObserver} about allocations, failures, read hits and count changes from now on. */
    public void setObserver(BucketObserver newObserver) {
        observer = newObserver;
    }

    /** The observer (CacheSpace reports count changes to it). */
    public BucketObserver observer() {
        return observer;
    }

    /** Consults {@code guard} before every generation bump from now on. */
    public void setBumpGuard(BumpGuard guard) {
        bumpGuard = guard;
    }

    /** The CRC32C of each 4 KiB block of the cache that one write filled whole (see {@link BlockChecksums}). */
    public BlockChecksums blockChecksums() {
        return blockChecksums;
    }

    /**
     * How many buckets were opened for writing since {@code bucket} was (its data's age in bucket opens; since this
     * process opened the cache for a bucket written before). Read admission rewrites hot blocks of old buckets
     * before eviction reaches them (docs/CACHING.md).
     */
    public long opensSince(int bucket) {
        return opened - openedAt[bucket];
    }

    /** Which clean data is covered by a backing flush, per bucket (docs/FORMAT.md §7 rule 10). */
    public CleanCoverage cleanCoverage() {
        return cleanCoverage;
    }

    /** A front-end read was served from {@code bucket} (recency for eviction). */
    public void noteReadHit(int bucket) {
        observer.onReadHit(bucket);
    }

    /** Pins {@code bucket} for a reader or an in-flight write (see {@link BucketTable#pin}). */
    public void pin(int bucket) {
        table.pin(bucket);
    }

    /** Ends a pin and releases the bucket if that was the last thing keeping an empty bucket. */
    public void unpin(int bucket) {
        if (table.unpin(bucket) == 0) {
            releaseIfEmpty(bucket);
        }
    }

    /** Frees every released bucket whose generation bump is in a journal entry up to {@code durableSequence}. */
    public void onJournalDurable(long durableSequence) {
        while (!pendingReuse.isEmpty() && pendingReuse.peekFirst().journalSequence() <= durableSequence) {
            int bucket = pendingReuse.removeFirst().bucket();
            table.setState(bucket, BucketState.FREE);
            free.set(bucket);
            freeCount++;
            warm[warmCount++] = bucket;
        }
    }

    /**
     * After an unclean open: holds back every free bucket from which the open dropped untrusted clean extents, until
     * a checkpoint begun after the open is durable ({@link #releaseQuarantine}). Why: those extents' records are still
     * in the journal and the checkpoint that replay started from, under the bucket's current generation (recovery
     * frees a bucket without a bump); were the bucket written again under that generation, a replay after the next
     * crash would map them onto the new bytes, and a coverage of the new data would trust them (docs/FORMAT.md §7
     * rule 10). Also forgets the coverage of every free bucket: nothing in it is live.
     *
     * @return buckets held back
     */
    public int quarantineDropped() {
        int held = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.FREE) {
                cleanCoverage.forget(b);
                if (cleanCoverage.droppedAtOpen(b)) {
                    free.clear(b);
                    freeCount--;
                    table.setState(b, BucketState.REUSE_PENDING);
                    quarantined.set(b);
                    held++;
                }
            }
        }
        cleanCoverage.clearDropped();
        return held;
    }

    /** A checkpoint begun after the open is durable: the buckets {@link #quarantineDropped} held back are free. */
    public void releaseQuarantine() {
        for (int b = quarantined.nextSetBit(0); b >= 0; b = quarantined.nextSetBit(b + 1)) {
            table.setState(b, BucketState.FREE);
            free.set(b);
            freeCount++;
        }
        quarantined.clear();
    }

    /** Buckets held back until a checkpoint ({@link #quarantineDropped}). */
    public int quarantinedBuckets() {
        return quarantined.cardinality();
    }

    /** Buckets free to allocate now (the metadata reserve included). */
    public int freeBuckets() {
        return freeCount;
    }

    /**
     * Keeps the last {@code buckets} free buckets for checkpoints: data write points get none of them. Without
     * it a cache full of dirty data could not checkpoint, and a journal that cannot checkpoint cannot commit. It is
     * also the most buckets metadata may hold at once (0: no bound, for unit tests that build no reserve).
     */
    public void setMetadataReserveBuckets(int buckets) {
        Checks.check(buckets >= 0 && buckets < table.bucketCount(), "metadata reserve %s out of range", buckets);
        reserveNow = () -> buckets;
    }

    /**
     * Sizes the reserve by what a checkpoint would write now: {@code reserveBuckets} is asked at every allocation
     * (and whenever GC looks), and must be cheap. The reserve grows with the extents in the index, before they can
     * outgrow it: a fixed reserve, sized for extents of 4 KiB on average, could not take the checkpoint of a cache
     * full of 512-byte extents, the journal ring could then not be freed, and every FLUSH hung (found 2026-12-07 with
     * random 512-byte writes).
     */
    public void setMetadataReserve(IntSupplier reserveBuckets) {
        reserveNow = reserveBuckets;
    }

    /**
     * Buckets kept for checkpoints: free buckets data may not take, and the most metadata may hold. Never less than
     * the reserve was while the durable checkpoint was written: that checkpoint keeps its buckets until the next one is
     * durable, and a reserve sized by fewer extents (a volume trimmed, evicted) would leave the next one none beside it
     * (metadata at the cap refused every bucket, found 2026-12-07).
     */
    public int metadataReserveBuckets() {
        int now = reserveNow.getAsInt();
        Checks.check(now >= 0 && now < table.bucketCount(), "metadata reserve %s out of range", now);
        reserveSinceDurableBuckets = Math.max(reserveSinceDurableBuckets, now);
        return Math.max(now, reserveOfDurableBuckets);
    }

    /**
     * The durable checkpoint found at the open holds {@code buckets}: until the next one is durable, the reserve keeps
     * room for it and one as large beside it (an unclean open drops clean extents, so the extents now may need far
     * fewer buckets than it holds).
     */
    public void recoveredCheckpoint(int buckets) {
        reserveOfDurableBuckets = Math.min(table.bucketCount() - 1, 2 * buckets + 2);
    }

    /**
     * A checkpoint is durable: it was written under at most the largest reserve since the one before it, which holds
     * until the next one is durable.
     */
    public void checkpointDurable() {
        reserveOfDurableBuckets = reserveSinceDurableBuckets;
        reserveSinceDurableBuckets = reserveNow.getAsInt();
    }

    /** Buckets in state METADATA now. */
    public int metadataBuckets() {
        return metadataBuckets;
    }

    /** Metadata allocations refused since start because metadata already held its whole reserve. */
    public long metadataAllocationsRefused() {
        return metadataAllocationsRefused;
    }

    /** Buckets released and waiting for their generation bump to become durable. */
    public int reusePendingBuckets() {
        return pendingReuse.size();
    }

    /** Data bucket allocations refused since start (each sent a write or fill around the cache). */
    public long allocationFailures() {
        return allocationFailures;
    }

    /** Clean buckets evicted since start. */
    public long bucketsEvicted() {
        return bucketsEvicted;
    }

    /** Buckets released since start. */
    public long bucketsReleased() {
        return bucketsReleased;
    }
}

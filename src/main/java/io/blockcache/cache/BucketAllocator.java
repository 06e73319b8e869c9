package io.blockcache.cache;

import java.util.ArrayDeque;
import java.util.BitSet;
import io.blockcache.journal.GenerationJournal;

/**
 * Hands out free buckets and takes emptied ones back, enforcing the reuse rule of DESIGN.md §3: a bucket's
 * generation bump is durable in the journal before the bucket is written again, so that after a crash every
 * key that still points into the old contents reads as stale.
 *
 * <p>Order: free buckets are handed out round-robin from a cursor (deterministic, and it spreads writes over
 * the device). An emptied bucket is reusable only when it is sealed, holds no live sectors and no reader has it
 * pinned.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class BucketAllocator {
    private final BucketTable table;
    private final GenerationJournal journal;
    private final BitSet free;
    private final ArrayDeque<PendingReuse> pendingReuse = new ArrayDeque<>();
    private int cursor;
    private int freeCount;
    private int metadataReserveBuckets;
    private long bucketsReleased;

    private record PendingReuse(int bucket, long journalSequence) {
    }

    /**
     * Creates an allocator over {@code table}; buckets already in state {@link BucketState#FREE} are free.
     */
    public BucketAllocator(BucketTable table, GenerationJournal journal) {
        this.table = table;
        this.journal = journal;
        this.free = new BitSet(table.bucketCount());
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.FREE) {
                free.set(b);
                freeCount++;
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
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.FREE) {
                free.set(b);
                freeCount++;
            }
        }
    }

    /**
     * Takes a free bucket for {@code purpose} ({@link BucketState#OPEN} or {@link BucketState#METADATA}).
     *
     * @return the bucket index, or -1 if none is free
     */
    public int allocate(BucketState purpose) {
        Checks.check(purpose == BucketState.OPEN || purpose == BucketState.METADATA,
                "buckets are allocated only to be OPEN or METADATA, not %s", purpose);
        if (purpose == BucketState.OPEN && freeCount <= metadataReserveBuckets) {
            return -1; // the last buckets are kept for checkpoints, which free the journal
        }
        int bucket = free.nextSetBit(cursor);
        if (bucket < 0) {
            bucket = free.nextSetBit(0);
            if (bucket < 0) {
                return -1;
            }
        }
        free.clear(bucket);
        freeCount--;
        cursor = bucket + 1 == table.bucketCount() ? 0 : bucket + 1;
        Checks.check(table.liveSectors(bucket) == 0 && table.pins(bucket) == 0,
                "free bucket %s still holds live sectors or readers", bucket);
        table.setState(bucket, purpose);
        return bucket;
    }

    /** Seals an open bucket (a write point moves on) and releases it at once if nothing in it is live. */
    public void seal(int bucket) {
        Checks.check(table.state(bucket) == BucketState.OPEN, "sealing bucket %s in state %s", bucket,
                table.state(bucket));
        table.setState(bucket, BucketState.SEALED);
        releaseIfEmpty(bucket);
    }

    /**
     * Releases {@code bucket} if it is sealed (or metadata no longer needed), holds no live sectors and no
     * reader has it pinned: bumps its generation, journals the bump, and queues it until the journal entry is
     * durable. Call whenever one of those conditions may have become true.
     *
     * @return true if the bucket was released
     */
    public boolean releaseIfEmpty(int bucket) {
        BucketState state = table.state(bucket);
        if ((state != BucketState.SEALED && state != BucketState.METADATA)
                || table.liveSectors(bucket) != 0 || table.pins(bucket) != 0) {
            return false;
        }
        int generation = table.bumpGeneration(bucket);
        long sequence = journal.recordGeneration(bucket, generation);
        table.setState(bucket, BucketState.REUSE_PENDING);
        Checks.check(pendingReuse.isEmpty() || pendingReuse.peekLast().journalSequence() <= sequence,
                "journal sequences must not go backwards: %s after %s", sequence,
                pendingReuse.isEmpty() ? -1 : pendingReuse.peekLast().journalSequence());
        pendingReuse.addLast(new PendingReuse(bucket, sequence));
        bucketsReleased++;
        return true;
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
        }
    }

    /** Buckets free to allocate now (the metadata reserve included). */
    public int freeBuckets() {
        return freeCount;
    }

    /**
     * Keeps the last {@code buckets} free buckets for checkpoints: data write points get none of them. Without
     * it a cache full of dirty data could not checkpoint, and a journal that cannot checkpoint cannot commit.
     */
    public void setMetadataReserveBuckets(int buckets) {
        Checks.check(buckets >= 0 && buckets < table.bucketCount(), "metadata reserve %s out of range", buckets);
        metadataReserveBuckets = buckets;
    }

    /** Buckets kept for checkpoints. */
    public int metadataReserveBuckets() {
        return metadataReserveBuckets;
    }

    /** Buckets released and waiting for their generation bump to become durable. */
    public int reusePendingBuckets() {
        return pendingReuse.size();
    }

    /** Buckets released since start. */
    public long bucketsReleased() {
        return bucketsReleased;
    }
}

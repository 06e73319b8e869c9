package io.blockcache.writeback;

import io.blockcache.cache.BucketTable;
import java.util.ArrayDeque;
import java.util.BitSet;

/**
 * A cheap upper bound on how long each dirty extent has been dirty: per bucket, the loop time it was first
 * used for this volume's dirty data under its current generation. Every extent in the bucket was written at
 * or after that time, so {@code now - openedNs} bounds its age from above (never below: expiry may come early,
 * never late). Dirty data found at start-up (recovered) is dated from start-up: ages do not survive a restart.
 *
 * <p>Openings are remembered in order, so the oldest bucket still holding dirty data is found in amortised
 * O(1): marks at the head whose bucket no longer holds dirty data under that generation are dropped. Marks
 * behind a live head stay until they reach it, so the queue holds at most the openings of about one expiry
 * period.
 *
 * <p>Cost: 10 bytes per bucket of the cache, per volume, plus 24 bytes per queued mark.
 * Thread rule: the loop thread.
 */
final class DirtyAges {
    private final BucketTable table;
    private final long[] openedNs;
    private final char[] generation;
    private final BitSet seen = new BitSet();
    private final ArrayDeque<Mark> marks = new ArrayDeque<>();

    private record Mark(int bucket, int generation, long openedNs) {
    }

    DirtyAges(BucketTable table, long startNs) {
        this.table = table;
        int buckets = table.bucketCount();
        this.openedNs = new long[buckets];
        this.generation = new char[buckets];
        for (int b = 0; b < buckets; b++) {
            openedNs[b] = startNs;
            generation[b] = (char) table.generation(b);
            if (table.dirtySectors(b) > 0) {
                seen.set(b);
                marks.addLast(new Mark(b, generation[b], startNs));
            }
        }
    }

    /** Dirty data is being appended into {@code bucket} under {@code bucketGeneration} at {@code nowNs}. */
    void used(int bucket, int bucketGeneration, long nowNs) {
        if (seen.get(bucket) && generation[bucket] == bucketGeneration) {
            return;
        }
        seen.set(bucket);
        generation[bucket] = (char) bucketGeneration;
        openedNs[bucket] = nowNs;
        marks.addLast(new Mark(bucket, bucketGeneration, nowNs));
    }

    /** The time since which data in {@code bucket} (current generation) has been dirty at most. */
    long agedSinceNs(int bucket) {
        return openedNs[bucket];
    }

    /** Opening time of the oldest bucket that may still hold dirty data; {@code Long.MAX_VALUE} if none. */
    long oldestDirtyNs() {
        while (!marks.isEmpty()) {
            Mark mark = marks.peekFirst();
            if (table.dirtySectors(mark.bucket()) > 0 && table.generation(mark.bucket()) == mark.generation()) {
                return mark.openedNs();
            }
            marks.pollFirst();
        }
        return Long.MAX_VALUE;
    }
}

package io.blockcache.journal;

/**
 * Where the journal ring lies on the cache device and which of its buckets may be overwritten.
 *
 * <p>Reuse rule (docs/FORMAT.md §5.3): a ring bucket may be written again only when every entry in it has a
 * sequence below the start of the newest durable checkpoint, since replay starts there.
 *
 * @see JournalWriter
 */
public final class JournalRing {
    private final long ringStartBytes;
    private final int bucketSizeBytes;
    private final int buckets;
    private final long[] newestSequenceInBucket;

    /**
     * @param ringStartBytes device byte offset of ring offset 0
     * @param bucketSizeBytes bucket size
     * @param buckets buckets in the ring, at least 3 (one being written, one or more holding the entries
     *     replay needs, one to move on to)
     */
    public JournalRing(long ringStartBytes, int bucketSizeBytes, int buckets) {
        if (buckets < 3) {
            throw new IllegalArgumentException("a journal ring needs at least 3 buckets, got " + buckets);
        }
        this.ringStartBytes = ringStartBytes;
        this.bucketSizeBytes = bucketSizeBytes;
        this.buckets = buckets;
        this.newestSequenceInBucket = new long[buckets];
    }

    /** Ring size in bytes. */
    public long ringBytes() {
        return (long) buckets * bucketSizeBytes;
    }

    /** Bucket size in bytes. */
    public int bucketSizeBytes() {
        return bucketSizeBytes;
    }

    /** Number of ring buckets. */
    public int buckets() {
        return buckets;
    }

    /** Device byte offset of ring offset {@code ringOffsetBytes}. */
    public long deviceOffset(long ringOffsetBytes) {
        return ringStartBytes + ringOffsetBytes;
    }

    /** Records that an entry with {@code sequence} now lies in the ring bucket holding {@code ringOffsetBytes}. */
    public void noteEntry(long ringOffsetBytes, long sequence) {
        int bucket = (int) (ringOffsetBytes / bucketSizeBytes);
        newestSequenceInBucket[bucket] = Math.max(newestSequenceInBucket[bucket], sequence);
    }

    /** True if the ring bucket holding {@code ringOffsetBytes} may be overwritten. */
    public boolean reusable(long ringOffsetBytes, long checkpointSequence) {
        long newest = newestSequenceInBucket[(int) (ringOffsetBytes / bucketSizeBytes)];
        return newest == 0 || newest < checkpointSequence;
    }

    /** Ring buckets still holding entries that replay would need. */
    public int bucketsInUse(long checkpointSequence) {
        int used = 0;
        for (long newest : newestSequenceInBucket) {
            if (newest != 0 && newest >= checkpointSequence) {
                used++;
            }
        }
        return used;
    }
}

package io.blockcache.journal;

import io.blockcache.format.CheckpointChunk;
import io.blockcache.format.CheckpointDigest;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalRecord;
import java.util.List;

/**
 * Decodes a checkpoint one chunk at a time from the contents of its buckets, in the order the CheckpointDone record
 * lists them, so that recovery can apply a checkpoint of millions of extents in bounded slices instead of decoding
 * it whole (docs/ARCHITECTURE.md §4.6). Chunks are packed from offset 0 of each bucket; a bucket's chunks end where
 * the next header is not a chunk of this checkpoint with the next index (docs/FORMAT.md §6).
 *
 * <p>The digest of the chunks read and the extent count must match the record: the call that reaches the end
 * checks both, so a caller that applies chunks as they come must treat what it applied as unconfirmed until
 * {@link #nextChunk} returned null (recovery writes nothing before then: a refused checkpoint costs only memory).
 * Pure: no I/O. Thread rule: one thread at a time.
 */
public final class CheckpointCursor {
    private final JournalRecord.CheckpointDone done;
    private final List<byte[]> bucketContents;
    private final CheckpointDigest digest = new CheckpointDigest();
    private int bucketIndex;
    private int offsetInBucket;
    private boolean anyInBucket;
    private int chunkIndex;
    private long extents;
    private boolean finished;

    /**
     * @param done the record that names the checkpoint
     * @param bucketContents the full contents of each listed bucket, in list order
     */
    public CheckpointCursor(JournalRecord.CheckpointDone done, List<byte[]> bucketContents) {
        this.done = done;
        this.bucketContents = bucketContents;
    }

    /**
     * The items of the next chunk, in order; null once every chunk was read and the digest and extent count
     * matched the record.
     *
     * @throws JournalRecovery.CorruptJournalException if a chunk is damaged or missing, or the whole does not
     *     match the record
     */
    public List<CheckpointItem> nextChunk() throws JournalRecovery.CorruptJournalException {
        while (!finished && bucketIndex < bucketContents.size()) {
            byte[] bucket = bucketContents.get(bucketIndex);
            if (offsetInBucket < bucket.length) {
                DecodeResult<CheckpointChunk> decoded = CheckpointChunk.decode(bucket, offsetInBucket);
                if (decoded.isOk() && decoded.value().checkpointStartSequence() == done.checkpointStartSequence()
                        && decoded.value().chunkIndex() == chunkIndex) {
                    return take(decoded.value());
                }
                if (!anyInBucket) {
                    throw new JournalRecovery.CorruptJournalException("checkpoint " + done.checkpointStartSequence()
                            + ": bucket " + done.buckets().get(bucketIndex) + " does not start with chunk "
                            + chunkIndex + ": " + (decoded.isOk() ? "found chunk " + decoded.value().chunkIndex()
                            + " of checkpoint " + decoded.value().checkpointStartSequence() : decoded.error()));
                }
            }
            bucketIndex++;
            offsetInBucket = 0;
            anyInBucket = false;
        }
        if (!finished) {
            finished = true;
            if (digest.value() != done.checkpointCrc() || extents != done.extentCount()) {
                throw new JournalRecovery.CorruptJournalException("checkpoint " + done.checkpointStartSequence()
                        + " does not match its record: read " + chunkIndex + " chunks with " + extents
                        + " extents and digest " + Integer.toHexString(digest.value()) + ", record says "
                        + done.extentCount() + " extents and digest " + Integer.toHexString(done.checkpointCrc()));
            }
        }
        return null;
    }

    private List<CheckpointItem> take(CheckpointChunk chunk) {
        anyInBucket = true;
        digest.add(chunk.chunkCrc());
        for (CheckpointItem item : chunk.items()) {
            if (item instanceof CheckpointItem.ExtentRun run) {
                extents += run.extents().size();
            }
        }
        chunkIndex++;
        offsetInBucket += chunk.chunkBytes();
        return chunk.items();
    }

    /** Extents in the chunks returned so far. */
    public long extentsRead() {
        return extents;
    }
}

package io.blockcache.journal;

import io.blockcache.format.CheckpointChunk;
import io.blockcache.format.CheckpointDigest;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a checkpoint from the contents of its buckets, in the order the CheckpointDone record lists them.
 * Chunks are packed from offset 0 of each bucket; a bucket's chunks end where the next header is not a chunk
 * of this checkpoint with the next index. The digest of the chunks read and the extent count must match the
 * record, so a checkpoint is used whole or not at all. Pure: no I/O.
 */
public final class CheckpointReader {
    private CheckpointReader() {
    }

    /**
     * Returns every item of the checkpoint in order.
     *
     * @param bucketContents the full contents of each listed bucket, in list order
     * @throws JournalRecovery.CorruptJournalException if a chunk is damaged or missing
     */
    public static List<CheckpointItem> read(JournalRecord.CheckpointDone done, List<byte[]> bucketContents)
            throws JournalRecovery.CorruptJournalException {
        CheckpointDigest digest = new CheckpointDigest();
        List<CheckpointItem> items = new ArrayList<>();
        long extents = 0;
        int chunkIndex = 0;
        for (int i = 0; i < bucketContents.size(); i++) {
            byte[] bucket = bucketContents.get(i);
            int offset = 0;
            boolean any = false;
            while (offset < bucket.length) {
                DecodeResult<CheckpointChunk> decoded = CheckpointChunk.decode(bucket, offset);
                if (!decoded.isOk() || decoded.value().checkpointStartSequence() != done.checkpointStartSequence()
                        || decoded.value().chunkIndex() != chunkIndex) {
                    if (!any) {
                        throw new JournalRecovery.CorruptJournalException("checkpoint " + done.checkpointStartSequence()
                                + ": bucket " + done.buckets().get(i) + " does not start with chunk " + chunkIndex
                                + ": "
                                + (decoded.isOk() ? "found chunk " + decoded.value().chunkIndex() + " of checkpoint "
                                + decoded.value().checkpointStartSequence() : decoded.error()));
                    }
                    break;
                }
                CheckpointChunk chunk = decoded.value();
                any = true;
                digest.add(chunk.chunkCrc());
                for (CheckpointItem item : chunk.items()) {
                    items.add(item);
                    if (item instanceof CheckpointItem.ExtentRun run) {
                        extents += run.extents().size();
                    }
                }
                chunkIndex++;
                offset += chunk.chunkBytes();
            }
        }
        if (digest.value() != done.checkpointCrc() || extents != done.extentCount()) {
            throw new JournalRecovery.CorruptJournalException("checkpoint " + done.checkpointStartSequence()
                    + " does not match its record: read " + chunkIndex + " chunks with " + extents
                    + " extents and digest " + Integer.toHexString(digest.value()) + ", record says "
                    + done.extentCount() + " extents and digest " + Integer.toHexString(done.checkpointCrc()));
        }
        return items;
    }
}

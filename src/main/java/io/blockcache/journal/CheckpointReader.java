package io.blockcache.journal;

import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes a whole checkpoint from the contents of its buckets ({@code check} and tests; recovery applies it chunk
 * by chunk through the same {@link CheckpointCursor}, so the two cannot disagree). The digest of the chunks read
 * and the extent count must match the record, so a checkpoint is used whole or not at all. Pure: no I/O.
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
        CheckpointCursor cursor = new CheckpointCursor(done, bucketContents);
        List<CheckpointItem> items = new ArrayList<>();
        for (List<CheckpointItem> chunk = cursor.nextChunk(); chunk != null; chunk = cursor.nextChunk()) {
            items.addAll(chunk);
        }
        return items;
    }
}

package io.blockcache.engine;

import io.blockcache.cache.BucketTable;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.index.ExtentIndex;
import java.util.List;
import java.util.Map;

/**
 * Applies a checkpoint and then journal records to the bucket generations and the volumes' indexes, the
 * same way the running engine applied them. Every record is a "set" or a conditional change of what it
 * names, so applying it again, or over a checkpoint that already reflects it, gives the same result:
 * replay is idempotent, and a crash during recovery is just another crash.
 */
final class Replayer {
    private final BucketTable table;
    private final Map<Integer, ExtentIndex> indexes;

    Replayer(BucketTable table, Map<Integer, ExtentIndex> indexes) {
        this.table = table;
        this.indexes = indexes;
    }

    void applyCheckpoint(List<CheckpointItem> items) {
        for (CheckpointItem item : items) {
            switch (item) {
                case CheckpointItem.GenerationSlice slice -> {
                    for (int i = 0; i < slice.generations().size(); i++) {
                        table.setGeneration(slice.firstBucket() + i, slice.generations().get(i));
                    }
                }
                case CheckpointItem.ExtentRun run -> {
                    for (JournalRecord.ExtentInsert extent : run.extents()) {
                        insert(extent);
                    }
                }
            }
        }
    }

    void applyEntries(List<JournalEntry> entries) {
        for (JournalEntry entry : entries) {
            for (JournalRecord record : entry.records()) {
                apply(record);
            }
        }
    }

    private void apply(JournalRecord record) {
        switch (record) {
            case JournalRecord.ExtentInsert insert -> insert(insert);
            case JournalRecord.ExtentRemove remove -> index(remove.volumeId()).remove(remove.startSector(),
                    remove.lengthSectors());
            case JournalRecord.ExtentClean clean -> index(clean.volumeId()).markClean(clean.startSector(),
                    clean.lengthSectors(), clean.bucket(), clean.offsetInBucketSectors(), clean.generation());
            case JournalRecord.BucketGeneration generation -> table.setGeneration(generation.bucket(),
                    generation.generation());
            case JournalRecord.CheckpointDone done -> { } // located before replay began
            case JournalRecord.CleanShutdown shutdown -> { } // informational
        }
    }

    private void insert(JournalRecord.ExtentInsert extent) {
        index(extent.volumeId()).insert(extent.startSector(), extent.lengthSectors(), extent.bucket(),
                extent.offsetInBucketSectors(), extent.generation(), extent.dirty(), extent.crc32c(),
                extent.crcSpanStartSectors(), extent.crcSpanLengthSectors());
    }

    private ExtentIndex index(int volumeId) {
        ExtentIndex index = indexes.get(volumeId);
        if (index == null) {
            throw new IllegalStateException("journal names volume " + volumeId + ", which is not attached");
        }
        return index;
    }
}

package io.blockcache.engine;

import io.blockcache.cache.BucketTable;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import java.util.List;
import java.util.Map;

/**
 * Applies a checkpoint and then journal records to the bucket generations and the volumes' indexes, the
 * same way the running engine applied them. Every record is a "set" or a conditional change of what it
 * names, so applying it again, or over a checkpoint that already reflects it, gives the same result:
 * replay is idempotent, and a crash during recovery is just another crash.
 */
final class Replayer {
    /** Leaves visited per step when dropping clean extents. */
    private static final int NODES_PER_STEP = 1024;

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

    /**
     * After an unclean stop no clean extent is trusted (docs/FORMAT.md §7 rule 10): drops every clean extent of
     * every volume. Called by open ({@link CacheSetBuilder}); check audits every recorded extent and notes
     * that open will drop the clean ones ({@link CacheInspector}).
     */
    void distrustCleanExtents() {
        for (ExtentIndex index : indexes.values()) {
            dropCleanExtents(index);
        }
    }

    /**
     * After an unclean stop no clean extent is trusted (docs/FORMAT.md §7 rule 10): a write to the backing
     * device may have landed after the record that made the extent clean while the record of its removal was
     * lost with the power, so the copy may be older than the backing data. Dirty extents stay: they are newer
     * than the backing device by construction and are written back.
     */
    private static void dropCleanExtents(ExtentIndex index) {
        Ranges clean = new Ranges();
        long cursor = 0;
        while (cursor != ExtentIndex.CURSOR_END) {
            cursor = index.forEachInNodes(cursor, NODES_PER_STEP, (start, length, location, crc, crcAt, crcLength) -> {
                if (!ExtentLocation.dirty(location)) {
                    clean.add(start, length);
                }
            });
        }
        for (int i = 0; i < clean.size; i++) {
            index.remove(clean.starts[i], clean.lengths[i]);
        }
    }

    /** Ranges collected without an object per range (an index may hold millions of extents). */
    private static final class Ranges {
        long[] starts = new long[64];
        int[] lengths = new int[64];
        int size;

        void add(long start, int length) {
            if (size == starts.length) {
                starts = java.util.Arrays.copyOf(starts, size * 2);
                lengths = java.util.Arrays.copyOf(lengths, size * 2);
            }
            starts[size] = start;
            lengths[size] = length;
            size++;
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

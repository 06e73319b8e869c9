package io.blockcache.engine;

import io.blockcache.format.CheckpointChunk;
import io.blockcache.format.CheckpointDigest;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What salvage can read of one checkpoint: the chunks that verify, found at every 4 KiB position of the buckets its
 * CheckpointDone record lists (with {@link CheckpointChunk#decode}, so one damaged chunk, whose length is then
 * unknown, does not hide the chunks after it), and where chunks are missing. Extent runs come in LBA order, volume
 * after volume (docs/FORMAT.md §6), so a missing chunk's extents lie between the last extent of the chunk before it
 * and the first of the chunk after it: {@link #gaps} says where. Pure. Thread rule: one thread.
 *
 * @param done the record naming the checkpoint
 * @param chunks the chunks that verify, by chunk index
 * @param complete true if chunks 0..n-1 are all there and match the record's digest and extent count
 */
record SalvageCheckpoint(JournalRecord.CheckpointDone done, TreeMap<Integer, CheckpointChunk> chunks,
                         boolean complete) {
    /** A place in the checkpoint's LBA order: a volume and a sector of it. */
    record Place(int volumeId, long sector) {
    }

    /** Sectors the checkpoint says nothing about: from {@code from} (null: the start) to {@code to} (null: the end). */
    record Gap(Place from, Place to) {
    }

    /** Decodes the chunks of {@code done} from the contents of its buckets, in the record's order. */
    static SalvageCheckpoint read(JournalRecord.CheckpointDone done, List<byte[]> bucketContents) {
        TreeMap<Integer, CheckpointChunk> chunks = new TreeMap<>();
        for (byte[] bucket : bucketContents) {
            int offset = 0;
            while (offset < bucket.length) {
                DecodeResult<CheckpointChunk> decoded = CheckpointChunk.decode(bucket, offset);
                if (decoded.isOk() && decoded.value().checkpointStartSequence() == done.checkpointStartSequence()) {
                    chunks.putIfAbsent(decoded.value().chunkIndex(), decoded.value());
                    offset += decoded.value().chunkBytes();
                } else {
                    offset += 4096;
                }
            }
        }
        return new SalvageCheckpoint(done, chunks, isComplete(done, chunks));
    }

    private static boolean isComplete(JournalRecord.CheckpointDone done, TreeMap<Integer, CheckpointChunk> chunks) {
        if (chunks.isEmpty() || chunks.lastKey() != chunks.size() - 1) {
            return false;
        }
        CheckpointDigest digest = new CheckpointDigest();
        long extents = 0;
        for (CheckpointChunk chunk : chunks.values()) {
            digest.add(chunk.chunkCrc());
            for (CheckpointItem item : chunk.items()) {
                if (item instanceof CheckpointItem.ExtentRun run) {
                    extents += run.extents().size();
                }
            }
        }
        return digest.value() == done.checkpointCrc() && extents == done.extentCount();
    }

    /** The items of the chunks that verify, in chunk order. */
    List<CheckpointItem> items() {
        List<CheckpointItem> items = new ArrayList<>();
        chunks.values().forEach(chunk -> items.addAll(chunk.items()));
        return items;
    }

    /** True if the generation slices of the chunks read cover {@code bucketCount} buckets. */
    boolean generationsCover(int bucketCount) {
        long covered = 0;
        for (CheckpointItem item : items()) {
            if (item instanceof CheckpointItem.GenerationSlice slice) {
                covered += slice.generations().size();
            }
        }
        return covered >= bucketCount;
    }

    /**
     * Where chunks are missing: before the first one read, between two read chunks whose indexes are not adjacent,
     * and, when the checkpoint is not complete, after the last one read (whether more chunks followed is unknown).
     */
    List<Gap> gaps() {
        List<Gap> gaps = new ArrayList<>();
        if (complete) {
            return gaps;
        }
        Place last = null;
        int expected = 0;
        for (Map.Entry<Integer, CheckpointChunk> entry : chunks.entrySet()) {
            Place first = firstExtent(entry.getValue());
            if (entry.getKey() != expected) {
                gaps.add(new Gap(last, first));
            }
            Place end = lastExtentEnd(entry.getValue());
            if (end != null) {
                last = end;
            }
            expected = entry.getKey() + 1;
        }
        gaps.add(new Gap(last, null));
        return gaps;
    }

    private static Place firstExtent(CheckpointChunk chunk) {
        for (CheckpointItem item : chunk.items()) {
            if (item instanceof CheckpointItem.ExtentRun run) {
                return new Place(run.volumeId(), run.extents().get(0).startSector());
            }
        }
        return null;
    }

    private static Place lastExtentEnd(CheckpointChunk chunk) {
        Place end = null;
        for (CheckpointItem item : chunk.items()) {
            if (item instanceof CheckpointItem.ExtentRun run) {
                JournalRecord.ExtentInsert extent = run.extents().get(run.extents().size() - 1);
                end = new Place(run.volumeId(), extent.startSector() + extent.lengthSectors());
            }
        }
        return end;
    }
}

package io.blockcache.journal;

import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongUnaryOperator;

/**
 * The items of one checkpoint, produced lazily: first every bucket's generation in slices, then the block CRCs
 * (docs/FORMAT.md §9) in runs, each within a bucket and tagged with its generation, then each volume's extents in LBA
 * order in runs. Each run is read from the index when it is asked for, from a sector
 * cursor, so the index may change between slices (a fuzzy checkpoint: replay from the checkpoint's start
 * sequence makes it exact, docs/FORMAT.md §5.3). Stale keys are left out.
 */
final class CheckpointItems implements Iterator<CheckpointItem> {
    /** Generations per item: 4096 buckets, 8 KiB of payload. */
    static final int GENERATIONS_PER_ITEM = 4096;
    /** Extents per item: 512 × 29 bytes ≈ 15 KiB, small enough to keep each step short. */
    static final int EXTENTS_PER_ITEM = 512;
    /** Block CRCs per item at most: 16 KiB, as for extents. */
    static final int BLOCK_CRCS_PER_ITEM = 4096;
    /** Covered buckets per item at most: 8 B each, 16 KiB. */
    static final int COVERED_PER_ITEM = 2048;

    private final MetadataSpace space;
    private final List<VolumeExtents> volumes;
    private int nextBucket;
    /** The next block (numbered across buckets) whose CRC may go into an item; -1 once all have. */
    private int nextBlock;
    private final int[] crcRun = new int[BLOCK_CRCS_PER_ITEM];
    /** The next bucket whose clean coverage may go into an item. */
    private int nextCoveredBucket;
    private int volume;
    private long cursor;
    private CheckpointItem lookahead;

    /** One volume's index, its number, and the recorded epoch of its dirty extent starting at a sector (0: none). */
    record VolumeExtents(int volumeId, ExtentIndex index, LongUnaryOperator epochOf) {
    }

    CheckpointItems(MetadataSpace space, List<VolumeExtents> volumes) {
        this.space = space;
        this.volumes = volumes;
    }

    @Override
    public boolean hasNext() {
        if (lookahead == null) {
            lookahead = produce();
        }
        return lookahead != null;
    }

    @Override
    public CheckpointItem next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        CheckpointItem item = lookahead;
        lookahead = null;
        return item;
    }

    private CheckpointItem produce() {
        if (nextBucket < space.bucketCount()) {
            int count = Math.min(GENERATIONS_PER_ITEM, space.bucketCount() - nextBucket);
            List<Integer> generations = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                generations.add(space.generation(nextBucket + i));
            }
            CheckpointItem item = new CheckpointItem.GenerationSlice(nextBucket, generations);
            nextBucket += count;
            return item;
        }
        if (nextBlock >= 0) {
            nextBlock = space.nextBlockWithCrc(nextBlock);
            if (nextBlock >= 0) {
                int count = space.blockCrcRun(nextBlock, crcRun);
                int bucket = nextBlock / space.blocksPerBucket();
                CheckpointItem item = new CheckpointItem.BlockCrcRun(new JournalRecord.BlockCrcs(bucket,
                        space.generation(bucket), nextBlock % space.blocksPerBucket(),
                        java.util.Arrays.copyOf(crcRun, count)));
                nextBlock += count;
                return item;
            }
        }
        CheckpointItem coverage = coverageRun();
        if (coverage != null) {
            return coverage;
        }
        while (volume < volumes.size()) {
            VolumeExtents current = volumes.get(volume);
            if (cursor != ExtentIndex.CURSOR_END) {
                List<ExtentInsert> run = new ArrayList<>();
                cursor = current.index().scan(cursor, location -> isCurrent(location), EXTENTS_PER_ITEM,
                        EXTENTS_PER_ITEM * 4, (start, length, location, crc, crcOffset, crcLength) ->
                                run.add(new ExtentInsert(current.volumeId(), start, length,
                                        ExtentLocation.bucket(location), ExtentLocation.offsetInBucketSectors(location),
                                        ExtentLocation.generation(location), ExtentLocation.dirty(location), crc,
                                        ExtentLocation.offsetInBucketSectors(location) - crcOffset, crcLength,
                                        ExtentLocation.dirty(location) ? current.epochOf().applyAsLong(start)
                                                : JournalRecord.EPOCH_NOT_RECORDED)));
                if (!run.isEmpty()) {
                    return new CheckpointItem.ExtentRun(current.volumeId(), run);
                }
                continue;
            }
            volume++;
            cursor = 0;
        }
        return null;
    }

    /**
     * The next run of clean coverage (docs/FORMAT.md §6 type 5), each bucket tagged with its generation, or null once
     * every bucket was looked at. Comes before the extent runs, after the generations it is checked against.
     */
    private CheckpointItem coverageRun() {
        List<JournalRecord.CleanCovered> run = new ArrayList<>();
        while (nextCoveredBucket < space.bucketCount() && run.size() < COVERED_PER_ITEM) {
            int bucket = nextCoveredBucket++;
            int covered = space.coveredSectors(bucket);
            if (covered > 0) {
                run.add(new JournalRecord.CleanCovered(bucket, space.generation(bucket), covered));
            }
        }
        return run.isEmpty() ? null : new CheckpointItem.CoverageRun(run);
    }

    private boolean isCurrent(long location) {
        return space.generation(ExtentLocation.bucket(location)) == ExtentLocation.generation(location);
    }
}

package io.blockcache.engine;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CleanCoverage;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.volume.DirtyEpochs;
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
    /** Per volume, the recorded epochs of dirty extents (docs/FORMAT.md §5.2), kept in step with the index. */
    private final Map<Integer, DirtyEpochs> epochs;
    /**
     * The volume the last record named, its index and epochs (null: not followed): records name the same volume
     * run after run, and two map look-ups with a boxed key per record were measured at 0.3–1.1 s of a 10 M-extent
     * crash replay (JFR, {@code HashMap.getNode} under {@code Replayer.index}; the JIT's type profile of the shared
     * {@code HashMap} code decides how slow). The maps do not change during a replay.
     */
    private int lastVolumeId = -1;
    private ExtentIndex lastIndex;
    private DirtyEpochs lastEpochs;

    /** Where block CRCs go (docs/FORMAT.md §9); null: not followed ({@code check}'s audit). */
    private final BlockChecksums checksums;
    /** Where clean coverage goes (docs/FORMAT.md §7 rule 10); null: not followed. */
    private final CleanCoverage coverage;

    Replayer(BucketTable table, Map<Integer, ExtentIndex> indexes) {
        this(table, indexes, Map.of(), null, null);
    }

    /**
     * @param epochs per volume id, where the recorded epochs go (volumes left out are not followed)
     * @param checksums where the block CRCs go, or null if they are not followed
     * @param coverage where the clean coverage goes, or null if it is not followed
     */
    Replayer(BucketTable table, Map<Integer, ExtentIndex> indexes, Map<Integer, DirtyEpochs> epochs,
             BlockChecksums checksums, CleanCoverage coverage) {
        this.table = table;
        this.indexes = indexes;
        this.epochs = epochs;
        this.checksums = checksums;
        this.coverage = coverage;
    }

    void applyCheckpoint(List<CheckpointItem> items) {
        for (CheckpointItem item : items) {
            switch (item) {
                case CheckpointItem.GenerationSlice slice -> applyGenerations(slice, 0, slice.generations().size());
                case CheckpointItem.ExtentRun run -> {
                    for (JournalRecord.ExtentInsert extent : run.extents()) {
                        insert(extent);
                    }
                }
                case CheckpointItem.BlockCrcRun run -> blockCrcs(run.crcs());
                case CheckpointItem.CoverageRun run -> coverage(run);
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
     * After an unclean stop a clean extent is trusted only if its bucket's coverage holds it (docs/FORMAT.md §7 rule
     * 10): a backing flush that completed after its data was read or written covered it, and every backing write
     * that could have made it stale was issued only after the record removing it was durable. Any other clean extent
     * may be older than the backing data (or than what the backing device kept) and is dropped. Dirty extents stay:
     * they are newer than the backing device by construction and are written back. Open calls this in slices
     * ({@link RecoveryReplay}); check audits every recorded extent and notes that open drops the untrusted clean ones
     * ({@link CacheInspector}).
     *
     * <p>Drops the untrusted clean extents among those of {@code nodes} leaves from {@code fromSector} (collected
     * first, removed after, since removals rebalance leaves; the returned cursor is a sector, which they do not move).
     *
     * @param coverage the replayed coverage; null trusts no clean extent
     * @param ranges scratch space for the slice's clean ranges, at least {@code nodes} leaves' worth
     * @return the cursor for the next slice, or {@link ExtentIndex#CURSOR_END}
     */
    static long dropCleanInNodes(ExtentIndex index, CleanCoverage coverage, long fromSector, int nodes,
                                 Ranges ranges) {
        ranges.size = 0;
        long cursor = index.forEachInNodes(fromSector, nodes, (start, length, location, crc, crcAt, crcLength) -> {
            ranges.visited++;
            int bucket = ExtentLocation.bucket(location);
            if (!ExtentLocation.dirty(location) && (coverage == null || !coverage.trusts(bucket,
                    ExtentLocation.generation(location), ExtentLocation.offsetInBucketSectors(location), length))) {
                ranges.add(start, length);
                if (coverage != null) {
                    coverage.dropped(bucket);
                }
            }
        });
        for (int i = 0; i < ranges.size; i++) {
            index.remove(ranges.starts[i], ranges.lengths[i]);
        }
        return cursor;
    }

    /** Ranges of one slice, collected without an object per range; {@code visited} counts extents looked at. */
    static final class Ranges {
        final long[] starts;
        final int[] lengths;
        int size;
        long visited;

        Ranges(int capacity) {
            starts = new long[capacity];
            lengths = new int[capacity];
        }

        void add(long start, int length) {
            starts[size] = start;
            lengths[size] = length;
            size++;
        }
    }

    /** Applies generations {@code [from, to)} of a checkpoint's generation slice. */
    void applyGenerations(CheckpointItem.GenerationSlice slice, int from, int to) {
        for (int i = from; i < to; i++) {
            setGeneration(slice.firstBucket() + i, slice.generations().get(i));
        }
    }

    /**
     * Sets a bucket's generation and forgets its block CRCs: a new generation means new bytes; the same one again is
     * the record the allocator writes when it hands out a bucket that recovery left free in the generation it was last
     * written under, so its old CRCs are stale from here on too (docs/FORMAT.md §5.2 type 9).
     */
    private void setGeneration(int bucket, int generation) {
        if (checksums != null) {
            checksums.forget(bucket);
        }
        if (coverage != null) {
            coverage.forget(bucket); // a generation record ends the coverage of the bucket's data, as its CRCs'
        }
        table.setGeneration(bucket, generation);
    }

    /**
     * Keeps block CRCs written under the bucket's current generation; older ones checked bytes that were since
     * replaced (a later record bumped the bucket), and are dropped, as a stale extent is.
     */
    void blockCrcs(JournalRecord.BlockCrcs crcs) {
        if (crcs.bucket() >= table.bucketCount()
                || (long) (crcs.firstBlock() + crcs.count()) * BlockChecksums.BLOCK_SECTORS > table.bucketSectors()) {
            throw new IllegalStateException("block CRCs of blocks [" + crcs.firstBlock() + ", +" + crcs.count()
                    + ") of bucket " + crcs.bucket() + ": outside the cache");
        }
        if (checksums != null && table.generation(crcs.bucket()) == crcs.generation()) {
            checksums.put(crcs.bucket(), crcs.firstBlock(), crcs.count(), crcs.crcs(), 0);
        }
    }

    /** Applies a checkpoint's coverage run: each bucket's, if the bucket still has the generation it names. */
    void coverage(CheckpointItem.CoverageRun run) {
        for (JournalRecord.CleanCovered covered : run.covered()) {
            cleanCovered(covered);
        }
    }

    /** Keeps a bucket's clean coverage if the bucket has the generation it was recorded under. */
    void cleanCovered(JournalRecord.CleanCovered covered) {
        if (covered.bucket() >= table.bucketCount() || covered.coveredSectors() > table.bucketSectors()) {
            throw new IllegalStateException("clean coverage of " + covered.coveredSectors() + " sectors of bucket "
                    + covered.bucket() + ": outside the cache");
        }
        if (coverage != null && table.generation(covered.bucket()) == covered.generation()) {
            coverage.cover(covered.bucket(), covered.coveredSectors());
        }
    }

    void apply(JournalRecord record) {
        switch (record) {
            case JournalRecord.ExtentInsert insert -> insert(insert);
            case JournalRecord.ExtentRemove remove -> {
                index(remove.volumeId()).remove(remove.startSector(), remove.lengthSectors());
                DirtyEpochs volumeEpochs = epochs.get(remove.volumeId());
                if (volumeEpochs != null) {
                    volumeEpochs.replayRemove(remove.startSector(), remove.lengthSectors());
                }
            }
            case JournalRecord.ExtentClean clean -> index(clean.volumeId()).markClean(clean.startSector(),
                    clean.lengthSectors(), clean.bucket(), clean.offsetInBucketSectors(), clean.generation());
            case JournalRecord.BucketGeneration generation -> setGeneration(generation.bucket(),
                    generation.generation());
            case JournalRecord.BlockCrcs crcs -> blockCrcs(crcs);
            case JournalRecord.CleanCovered covered -> cleanCovered(covered);
            case JournalRecord.CheckpointDone done -> { } // located before replay began
            case JournalRecord.CleanShutdown shutdown -> { } // informational
            case JournalRecord.EpochsVoid epochsVoid -> {
                index(epochsVoid.volumeId()); // a record of a volume that is not attached is corruption, as for others
                DirtyEpochs volumeEpochs = epochs.get(epochsVoid.volumeId());
                if (volumeEpochs != null) {
                    volumeEpochs.replayVoid(); // what follows the volume's epochs since may not be in their order
                }
            }
        }
    }

    void insert(JournalRecord.ExtentInsert extent) {
        index(extent.volumeId()).insert(extent.startSector(), extent.lengthSectors(), extent.bucket(),
                extent.offsetInBucketSectors(), extent.generation(), extent.dirty(), extent.crc32c(),
                extent.crcSpanStartSectors(), extent.crcSpanLengthSectors());
        DirtyEpochs volumeEpochs = lastEpochs; // of the volume index() just looked up
        if (volumeEpochs != null) {
            volumeEpochs.replayInsert(extent.startSector(), extent.lengthSectors(), extent.dirty(), extent.epoch());
        }
    }

    /** The index of {@code volumeId}; also makes {@link #lastEpochs} that volume's epochs. */
    private ExtentIndex index(int volumeId) {
        if (volumeId == lastVolumeId) {
            return lastIndex;
        }
        ExtentIndex index = indexes.get(volumeId);
        if (index == null) {
            throw new IllegalStateException("journal names volume " + volumeId + ", which is not attached");
        }
        lastVolumeId = volumeId;
        lastIndex = index;
        lastEpochs = epochs.get(volumeId);
        return index;
    }
}

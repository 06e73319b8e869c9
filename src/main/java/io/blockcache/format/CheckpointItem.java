package io.blockcache.format;

import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.loop.Checks;
import java.util.List;

/**
 * One item packed in a {@link CheckpointChunk}: a slice of the bucket generation table, a run of extents, or a run of
 * block CRCs.
 */
public sealed interface CheckpointItem {
    /** Type byte of {@link GenerationSlice}. */
    int TYPE_GENERATION_SLICE = 1;
    /** Type byte of {@link ExtentRun}. */
    int TYPE_EXTENT_RUN = 2;
    /** Type byte of an {@link ExtentRun} whose extents carry their epochs ({@link ExtentRun#withEpochs}). */
    int TYPE_EXTENT_RUN_EPOCHS = 3;
    /** Type byte of {@link BlockCrcRun}. */
    int TYPE_BLOCK_CRC_RUN = 4;
    int TYPE_COVERAGE_RUN = 5;

    /**
     * Generations of buckets [firstBucket, firstBucket + generations.size()).
     *
     * @param firstBucket u32 first bucket @param generations u16 each, at least one
     */
    record GenerationSlice(int firstBucket, List<Integer> generations) implements CheckpointItem {
        public GenerationSlice {
            ByteLayout.requireNonNegative("firstBucket", firstBucket);
            generations = List.copyOf(generations);
            Checks.require(!generations.isEmpty(), "a generation slice needs at least one bucket");
            for (int generation : generations) {
                ByteLayout.requireU16("generation", generation);
            }
        }
    }

    /**
     * Extents of one volume, each encoded with the ExtentInsert body (its volumeId is the run's).
     *
     * @param volumeId u16 @param extents at least one, all with {@code volumeId}
     */
    record ExtentRun(int volumeId, List<ExtentInsert> extents) implements CheckpointItem {
        public ExtentRun {
            ByteLayout.requireU16("volumeId", volumeId);
            extents = List.copyOf(extents);
            Checks.require(!extents.isEmpty(), "an extent run needs at least one extent");
            for (ExtentInsert extent : extents) {
                Checks.require(extent.volumeId() == volumeId, "extent of volume %d in a run of volume %d",
                        extent.volumeId(), volumeId);
            }
        }

        /**
         * Whether any extent carries an epoch: then the run is encoded as type 3, every extent body followed by
         * its epoch (0 for one without), else as type 2.
         */
        public boolean withEpochs() {
            for (ExtentInsert extent : extents) {
                if (extent.hasEpoch()) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Block CRCs of one bucket (docs/FORMAT.md §9), the same fields as journal record type 9.
     *
     * @param crcs the bucket, its generation, the first block and the CRCs
     */
    record BlockCrcRun(JournalRecord.BlockCrcs crcs) implements CheckpointItem {
    }

    /**
     * Type 5: the clean coverage of buckets (docs/FORMAT.md §6), each entry the fields of a journal {@link
     * JournalRecord.CleanCovered} record: written by running checkpoints only, so that a cache stopped cleanly holds
     * none and an older build opens it.
     */
    record CoverageRun(List<JournalRecord.CleanCovered> covered) implements CheckpointItem {
        public CoverageRun {
            covered = List.copyOf(covered);
            Checks.require(!covered.isEmpty(), "a coverage run needs at least one bucket");
        }
    }
}

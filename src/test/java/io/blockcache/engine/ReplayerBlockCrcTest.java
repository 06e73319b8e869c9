package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.cache.BucketTable;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Replay of block CRCs (docs/FORMAT.md §5.2 type 9, §6 type 4): kept only under the bucket's current generation,
 * forgotten when a later record gives the bucket a new one, refused outside the cache.
 */
class ReplayerBlockCrcTest {
    private final BucketTable table = new BucketTable(4, 256);
    private final BlockChecksums checksums = new BlockChecksums(4, 256);
    private final Replayer replayer = new Replayer(table, Map.of(), Map.of(), checksums, null);

    @Test
    void blockCrcsAreKeptOnlyUnderTheBucketsCurrentGeneration() {
        table.setGeneration(2, 5);
        replayer.apply(new JournalRecord.BlockCrcs(2, 4, 0, new int[] {1, 2})); // written before the bump to 5
        assertThat(checksums.knownBlocks()).isZero();
        replayer.apply(new JournalRecord.BlockCrcs(2, 5, 3, new int[] {7, 8, 9}));
        assertThat(checksums.covers(2, 24, 24)).isTrue();
        assertThat(checksums.crc(2, 4)).isEqualTo(8);
        replayer.apply(new JournalRecord.BucketGeneration(2, 6)); // the bucket was reused: its old CRCs go
        assertThat(checksums.knownBlocks()).isZero();
        replayer.apply(new JournalRecord.BlockCrcs(2, 6, 0, new int[] {3}));
        // The same generation again: the allocator handed out a bucket recovery had left free (its old CRCs go too).
        replayer.apply(new JournalRecord.BucketGeneration(2, 6));
        assertThat(checksums.knownBlocks()).isZero();
    }

    @Test
    void aCheckpointsGenerationSliceAndBlockCrcRunFollowTheSameRule() {
        replayer.applyCheckpoint(List.of(new CheckpointItem.GenerationSlice(0, List.of(1, 1, 3, 1)),
                new CheckpointItem.BlockCrcRun(new JournalRecord.BlockCrcs(2, 3, 0, new int[] {5})),
                new CheckpointItem.BlockCrcRun(new JournalRecord.BlockCrcs(1, 2, 0, new int[] {6}))));
        assertThat(checksums.covers(2, 0, 8)).isTrue();
        assertThat(checksums.covers(1, 0, 8)).as("generation 2 is not bucket 1's").isFalse();
        replayer.applyCheckpoint(List.of(new CheckpointItem.GenerationSlice(2, List.of(4))));
        assertThat(checksums.knownBlocks()).isZero();
    }

    @Test
    void blockCrcsOutsideTheCacheAreRefused() {
        assertThatThrownBy(() -> replayer.apply(new JournalRecord.BlockCrcs(4, 0, 0, new int[] {1})))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside the cache");
        assertThatThrownBy(() -> replayer.apply(new JournalRecord.BlockCrcs(0, 0, 31, new int[] {1, 2})))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside the cache");
    }
}

package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.journal.JournalPosition;
import io.blockcache.journal.JournalRecovery;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IndexAuditTest {
    /** 128 KiB buckets: 256 sectors each; buckets 0..3 are the journal ring. */
    private static final int BUCKET_SECTORS = 256;
    private final CacheSuperblock superblock = new CacheSuperblock(1, new UUID(1, 2), 512, 128 << 10, 16,
            1 << 20, 0, 4, 0, List.of(new AttachedBacking(new UUID(3, 4), 16L << 20, 1 << 20, 0, "default")));

    private static JournalRecord.ExtentInsert insert(long start, int length, int bucket, int offset, int generation,
                                                     boolean dirty) {
        return new JournalRecord.ExtentInsert(0, start, length, bucket, offset, generation, dirty, 0, 0, length);
    }

    private Problems audit(JournalRecord... records) {
        JournalRecovery recovery = new JournalRecovery(List.of(new JournalEntry(1, 0, 0, 4096, 0, List.of(records))),
                null, JournalPosition.fresh(), List.of(), "test");
        Problems problems = new Problems();
        IndexAudit.Result result = new IndexAudit(superblock, recovery, problems).run(List.of());
        assertThat(result).isNotNull();
        return problems;
    }

    @Test
    void consistentExtentsGiveNoProblemAndCountBucketsByDirtiness() {
        // Proves the baseline: dirty and clean extents in data buckets pass and classify their buckets.
        JournalRecovery recovery = new JournalRecovery(List.of(new JournalEntry(1, 0, 0, 4096, 0, List.of(
                insert(0, 8, 5, 0, 0, true), insert(100, 8, 6, 0, 0, false)))), null, JournalPosition.fresh(),
                List.of(), "test");
        Problems problems = new Problems();
        IndexAudit.Result result = new IndexAudit(superblock, recovery, problems).run(List.of());
        assertThat(problems.problems()).isEmpty();
        assertThat(result.buckets()).isEqualTo(new CacheReport.BucketCounts(10, 1, 1, 4, 0));
        assertThat(result.volumes().get(0).dirtyBytes()).isEqualTo(8 * 512);
        assertThat(result.volumes().get(0).cachedBytes()).isEqualTo(16 * 512);
    }

    @Test
    void dirtyExtentWhoseBucketGenerationMovedOnIsReportedAsLostData() {
        // Proves the stale-generation check: a dirty key in a reused bucket is a problem, a clean one only a note.
        Problems problems = audit(insert(0, 8, 5, 0, 0, true), insert(64, 8, 6, 0, 0, false),
                new JournalRecord.BucketGeneration(5, 1), new JournalRecord.BucketGeneration(6, 1));
        assertThat(problems.problems()).singleElement().asString()
                .contains("sectors [0, 8)", "dirty extent with stale generation", "bucket 5 is at generation 1");
        assertThat(problems.notes()).singleElement().asString().contains("1 stale clean extents");
    }

    @Test
    void extentInAJournalBucketIsReported() {
        // Proves extents may not point into the journal ring.
        assertThat(audit(insert(0, 8, 2, 0, 0, false)).problems()).singleElement().asString()
                .contains("inside a journal bucket");
    }

    @Test
    void bucketWithMoreLiveSectorsThanItHoldsIsReported() {
        // Proves the live-count bound: two extents claiming the same whole bucket overfill it.
        assertThat(audit(insert(0, BUCKET_SECTORS, 7, 0, 0, false), insert(1000, BUCKET_SECTORS, 7, 0, 0, false))
                .problems()).singleElement().asString().contains("bucket 7 holds 512 live sectors, more than its 256");
    }
}

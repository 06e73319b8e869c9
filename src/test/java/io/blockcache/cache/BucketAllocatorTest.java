package io.blockcache.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketAllocatorTest {
    private final List<long[]> journaled = new ArrayList<>();
    private long journalSequence = 10;
    private final BucketTable table = new BucketTable(4, 8);
    private final BucketAllocator allocator = new BucketAllocator(table, (bucket, generation) -> {
        journaled.add(new long[] {bucket, generation, journalSequence});
        return journalSequence;
    });

    @Test
    void anEmptiedBucketIsReusedOnlyAfterItsGenerationBumpIsDurable() {
        // Proves the reuse rule: release bumps and journals the generation; reuse waits for that entry.
        WritePoint point = new WritePoint("dirty", allocator, 8);
        WritePoint.Reservation r = new WritePoint.Reservation();
        assertThat(point.reserve(8, r)).isTrue();
        int bucket = r.bucket();
        table.addLive(bucket, 8, true);
        allocator.unpin(bucket); // the write landed and is indexed: the full bucket is sealed and live
        assertThat(table.state(bucket)).isEqualTo(BucketState.SEALED);
        table.addLive(bucket, -8, true); // overwritten elsewhere
        assertThat(allocator.releaseIfEmpty(bucket)).isTrue();
        assertThat(table.state(bucket)).isEqualTo(BucketState.REUSE_PENDING);
        assertThat(table.generation(bucket)).isEqualTo(1);
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0)).containsExactly(bucket, 1, 10);

        allocator.onJournalDurable(9);
        assertThat(table.state(bucket)).isEqualTo(BucketState.REUSE_PENDING);
        allocator.onJournalDurable(10);
        assertThat(table.state(bucket)).isEqualTo(BucketState.FREE);
        assertThat(allocator.freeBuckets()).isEqualTo(4);
    }

    @Test
    void blockChecksumsAreForgottenWhenTheBucketsGenerationIsBumped() {
        // Proves a bucket's block CRCs (BlockChecksums) do not outlive its contents: released (bumped), its entries
        // are gone, so data written after reuse is never checked against the old bytes' CRCs.
        WritePoint point = new WritePoint("dirty", allocator, 8);
        WritePoint.Reservation r = new WritePoint.Reservation();
        assertThat(point.reserve(8, r)).isTrue();
        int bucket = r.bucket();
        table.addLive(bucket, 8, true);
        allocator.unpin(bucket);
        allocator.blockChecksums().put(bucket, 0, 1, new int[] {0x1234}, 0);
        assertThat(allocator.blockChecksums().covers(bucket, 0, 8)).isTrue();
        table.addLive(bucket, -8, true);
        assertThat(allocator.releaseIfEmpty(bucket)).isTrue();
        assertThat(allocator.blockChecksums().covers(bucket, 0, 8)).isFalse();
        assertThat(allocator.blockChecksums().knownBlocks()).isZero();
    }

    @Test
    void aFreeBucketThatStillHasBlockCrcsIsHandedOutWithARecordThatVoidsThem() {
        // Proves the allocator's half of docs/FORMAT.md §5.2 type 9: a bucket recovery left free in the generation it
        // was last written under still has the CRCs replay gave it; handing it out journals a BucketGeneration record
        // of that same generation (replay forgets the CRCs there) and forgets them; a bucket without CRCs costs no
        // record.
        table.setGeneration(2, 7);
        for (int b = 0; b < 4; b++) {
            table.setState(b, BucketState.FREE);
        }
        allocator.rebuildFreeSet();
        allocator.blockChecksums().put(2, 0, 1, new int[] {42}, 0);
        List<Integer> handedOut = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            handedOut.add(allocator.allocate(BucketState.OPEN));
        }
        assertThat(handedOut).contains(2);
        assertThat(journaled).hasSize(1);
        assertThat(journaled.get(0)).containsExactly(2, 7, 10);
        assertThat(table.generation(2)).isEqualTo(7);
        assertThat(allocator.blockChecksums().knownBlocks()).isZero();
    }

    @Test
    void aPinnedOrLiveBucketIsNeverReleased() {
        // Proves that in-flight writes (pins) and live data keep a bucket from reuse.
        WritePoint point = new WritePoint("dirty", allocator, 8);
        WritePoint.Reservation r = new WritePoint.Reservation();
        assertThat(point.reserve(8, r)).isTrue(); // full at once, so sealed while the write is in flight
        assertThat(table.state(r.bucket())).isEqualTo(BucketState.SEALED);
        assertThat(allocator.releaseIfEmpty(r.bucket())).isFalse();
        table.addLive(r.bucket(), 3, false);
        allocator.unpin(r.bucket());
        assertThat(table.state(r.bucket())).isEqualTo(BucketState.SEALED);
        table.addLive(r.bucket(), -3, false);
        assertThat(allocator.releaseIfEmpty(r.bucket())).isTrue();
    }

    @Test
    void writePointsAppendSequentiallyAndSplitAtBucketEnds() {
        // Proves reservations are contiguous appends, split where a bucket ends, and fail cleanly when full.
        WritePoint point = new WritePoint("dirty", allocator, 8);
        WritePoint.Reservation r = new WritePoint.Reservation();
        List<String> grants = new ArrayList<>();
        int remaining = 4 * 8;
        while (remaining > 0) {
            assertThat(point.reserve(Math.min(remaining, 5), r)).isTrue();
            grants.add(r.bucket() + ":" + r.offsetSectors() + "+" + r.lengthSectors());
            remaining -= r.lengthSectors();
        }
        assertThat(grants).containsExactly("0:0+5", "0:5+3", "1:0+5", "1:5+3", "2:0+5", "2:5+3", "3:0+5", "3:5+3");
        assertThat(point.reserve(1, r)).isFalse();
        assertThat(allocator.freeBuckets()).isZero();
    }

    @Test
    void countsThatWouldGoOutOfRangeStopTheCache() {
        // Proves the always-on checks: accounting errors fail loudly instead of corrupting state.
        assertThatThrownBy(() -> table.addLive(0, -1, false)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> table.addLive(0, 9, false)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> table.unpin(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> table.generation(4)).isInstanceOf(IllegalStateException.class);
        table.setGeneration(1, 65535);
        assertThat(table.bumpGeneration(1)).isZero();
    }

    @Test
    void aFailedAllocationAsksForTheJournalCommitThatFreesWaitingBuckets() {
        // Proves a cleaned cache takes writes again at once: with buckets waiting only for a durable bump, a failed
        // allocation asks for the commit instead of waiting for the journal delay.
        int[] asked = {0};
        allocator.setReuseWanted(() -> asked[0]++);
        WritePoint point = new WritePoint("dirty", allocator, 8);
        WritePoint.Reservation r = new WritePoint.Reservation();
        for (int i = 0; i < 4; i++) {
            assertThat(point.reserve(8, r)).isTrue();
            allocator.unpin(r.bucket()); // nothing live: each full bucket is released at once
        }
        assertThat(allocator.reusePendingBuckets()).isEqualTo(4);
        assertThat(point.reserve(8, r)).isFalse();
        assertThat(asked[0]).isEqualTo(1);
        allocator.onJournalDurable(10);
        assertThat(point.reserve(8, r)).isTrue();
    }

    @Test
    void theBucketFreedLastIsTakenFirstAndNeverFreedOnesRoundRobinAfterThat() {
        // Proves the warm-first order: a freed bucket (its pages still in the page cache) is written again before
        // any bucket not freed since start, the most recently freed first; the others follow round-robin.
        BucketTable big = new BucketTable(8, 8);
        BucketAllocator warmFirst = new BucketAllocator(big, (bucket, generation) -> 10);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(0);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(1);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(2);
        for (int bucket : new int[] {1, 0}) {
            warmFirst.seal(bucket); // nothing live: released at once
        }
        warmFirst.onJournalDurable(10);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(0);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(1);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(3);
        warmFirst.seal(0);
        warmFirst.onJournalDurable(10);
        warmFirst.rebuildFreeSet(); // a restart forgets which buckets are warm
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(4);
        assertThat(warmFirst.allocate(BucketState.OPEN)).isEqualTo(5);
    }

    @Test
    void metadataNeverHoldsMoreThanTheReserveAndDataNeverTakesIt() {
        // Proves both sides of the checkpoint reserve: data allocations leave the last 3 free buckets, and metadata
        // allocations stop once 3 buckets are metadata, however many are free.
        BucketTable big = new BucketTable(16, 8);
        BucketAllocator space = new BucketAllocator(big, (bucket, generation) -> 1);
        space.setMetadataReserveBuckets(3);
        for (int i = 0; i < 3; i++) {
            assertThat(space.allocate(BucketState.METADATA)).isNotNegative();
        }
        assertThat(space.allocate(BucketState.METADATA)).isEqualTo(-1);
        assertThat(space.metadataBuckets()).isEqualTo(3);
        assertThat(space.metadataAllocationsRefused()).isEqualTo(1);
        int data = 0;
        while (space.allocate(BucketState.OPEN) >= 0) {
            data++;
        }
        assertThat(data).isEqualTo(16 - 3 - 3); // 13 free after the metadata, of which 3 are kept
        assertThat(space.freeBuckets()).isEqualTo(3);
        assertThat(space.allocate(BucketState.METADATA)).isEqualTo(-1);
    }

    @Test
    void aMetadataBucketTheGuardRefusesStaysWithItsOwner() {
        // Proves a metadata release the bump guard refuses changes nothing (no queued retry, state METADATA, still
        // counted) so that the checkpoint writer can reuse the bucket; allowed, it goes the journaled reuse path.
        allocator.setBumpGuard(bucket -> false);
        int bucket = allocator.allocate(BucketState.METADATA);
        assertThat(allocator.releaseMetadata(bucket)).isFalse();
        assertThat(table.state(bucket)).isEqualTo(BucketState.METADATA);
        assertThat(allocator.releaseRefusedBuckets()).isZero();
        assertThat(allocator.metadataBuckets()).isEqualTo(1);
        allocator.setBumpGuard(BumpGuard.ALLOW_ALL);
        assertThat(allocator.releaseMetadata(bucket)).isTrue();
        assertThat(table.state(bucket)).isEqualTo(BucketState.REUSE_PENDING);
        assertThat(allocator.metadataBuckets()).isZero();
    }
}

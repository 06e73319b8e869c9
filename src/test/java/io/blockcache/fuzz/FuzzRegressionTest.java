package io.blockcache.fuzz;

import org.junit.jupiter.api.Test;

/**
 * Every bug the fuzz found, replayed from seeds that fail without its fix (checked by disabling each
 * fix and searching seeds, docs/TESTING.md "Bugs the fuzz found"). A seed names a scenario only for the
 * generator it was found with: whoever changes what {@code FuzzSetup} or {@code FuzzScenario} draw must find
 * the seeds again the same way. Each test fails with the seed, the setup, the trace and the replay command.
 * They run with the generator they were found with: before {@code ordering} was drawn ({@code runUnordered}).
 */
class FuzzRegressionTest {
    @Test
    void cleanCopiesAreNotTrustedAfterAnUncleanStop() {
        // Proves the fix for stale clean copies after a power cut (FORMAT.md §7 rule 10), in every mode.
        FuzzScenario.runUnordered(1);
        FuzzScenario.runUnordered(3);
    }

    @Test
    void theShutdownCheckpointStartsAfterTheLastChange() {
        // Proves a clean shutdown no longer joins a checkpoint begun before later write-through copies.
        FuzzScenario.runUnordered(53);
    }

    @Test
    void readsWaitForAnOverlappingAroundCacheWrite() {
        // Proves a read never returns data older than an acknowledged write hidden by an around-cache write.
        FuzzScenario.runUnordered(59);
    }

    @Test
    void aWritePartlySupersededByAnAroundCacheWriteIsAcknowledgedOnlyOnceThatLanded() {
        // Proves a cached write that a newer around-cache write claimed part of is acknowledged only after that
        // write ended, so FUA (seed 156) and a later FLUSH (seed 2209) make the newer data durable.
        FuzzScenario.runUnordered(156);
        FuzzScenario.runUnordered(2209);
    }

    @Test
    void backingFlushErrorsStick() {
        // Proves a flush error reported to writeback only still fails the client's later FLUSH.
        FuzzScenario.runUnordered(15);
        FuzzScenario.runUnordered(21);
        FuzzScenario.runUnordered(25);
    }

    @Test
    void aFailedBackingDeviceDoesNotStopCheckpoints() {
        // Proves FLUSH/FUA do not hang once a backing flush failed: checkpoints no longer wait for the backing.
        FuzzScenario.runUnordered(314);
    }

    @Test
    void aDrainEndsWithTheWritebackError() {
        // Proves a drain on a backing device whose flushes fail ends with the error instead of retrying forever.
        FuzzScenario.runUnordered(367);
    }

    @Test
    void writeThroughKeepsNoCopyOfAWriteTheBackingDeviceRefused() {
        // Proves the clean copy of a write-through write is installed only after its backing write succeeded.
        FuzzScenario.runUnordered(443);
    }

    @Test
    void aCheckpointNeverStartsInsideAJournalAppend() {
        // Proves a flushed dirty write survives a checkpoint triggered by journal pressure during its insert.
        FuzzScenario.runUnordered(954);
    }

    @Test
    void aFailedAroundCacheWriteDoesNotLeaveTheWritesItHidAcknowledged() {
        // Proves an older cached write hidden by a newer write around the cache that then failed is not
        // acknowledged: its hidden part was never installed and the newer data never landed (a stale read, a
        // sector read as zero after recovery, a broken epoch prefix). Found with the damage map and epochs on
        // (2026-12-01), whose extra waits made the overlap likely; the generator they were found with (ordering
        // drawn, every damage map on its backing device).
        for (long seed : new long[] {20043, 23011, 23181, 23930, 26440, 27583}) {
            FuzzScenario.runWithMapsOnBacking(seed);
        }
    }

    /**
     * Proves a live switch of {@code ordering} to {@code none} is durable before the backing device can leave the
     * recorded epoch order (journal record type 8, docs/FORMAT.md §7 rule 15): each seed switched vol0 to none, wrote
     * back out of order, lost power before a checkpoint, and recovery restored the epochs of the records from before
     * the switch, so the strict prefix oracle found the backing device no prefix of them. Found by the 2,000- and
     * 6,000-seed runs of 2026-12-01 (docs/TESTING.md); each fails with {@code EpochRecord.coarsened} doing nothing
     * (checked once by hand). The generator they were found with: ordering drawn, maps on the backing device.
     */
    @Test
    void aLiveSwitchToUnorderedIsDurableBeforeWritebackLeavesTheRecordedEpochs() {
        for (long seed : new long[] {40725, 41231, 51661}) {
            FuzzScenario.runWithMapsOnBacking(seed);
        }
    }

    /**
     * Proves writeback starts only once the open has handed the set over with its knobs set: started earlier, its
     * sample fired while the open still wrote the damage maps, an unordered pass with the default knobs voided the
     * recovered epochs of a volume configured with ordering=epochs, and the strict oracle found them lost. Found by
     * the first run with map files drawn (seed 43, generator {@code NO_MAP_FAULTS}); fails with {@code
     * CacheSet.startWriteback} called where the set is built (checked once by hand).
     */
    @Test
    void writebackWaitsForTheKnobsTheOpenHandsOver() {
        FuzzScenario.runWithoutMapFaults(43);
    }

    /**
     * Proves requests held for the damage map's clear of its consistency flag do not wait forever when the map's
     * device can no longer flush (a failed backing flush sticks until restart): each failed attempt refuses them
     * with the reason. Found by the 4,000-seed run at the end of 2026-12-01 (the workload stalled: writes over older
     * epochs, trims and write-zeroes held while the clear failed every second); fails with the held requests left
     * waiting after a failed clear (checked once by hand).
     */
    @Test
    void requestsHeldForAFailingFlagClearAreRefusedNotKeptForever() {
        FuzzScenario.runWithoutMapFaults(83271);
    }

    /**
     * Proves a write routed while the volume kept no epoch order joins the unknown-order epoch when it lands after a
     * live switch to ordering=epochs: tagged with the current epoch, it overwrote data dirty at the switch without
     * waiting and hid it behind a later epoch, while a FUA write routed around the cache before the switch was
     * already on the backing device; the strict prefix oracle found the backing device at no FLUSH boundary. Found
     * by the first run of 2026-12-02 (seed 90249; no faults drawn, so the map-file faults added then change
     * nothing); fails without {@code CachedWrite}'s unknown-order tag (checked: main at ee96835 fails it).
     */
    @Test
    void aWriteInFlightAcrossASwitchToEpochsDoesNotHideOlderDirtyData() {
        FuzzScenario.runWithoutObjectStores(90249);
    }

    /**
     * Proves a drain asked for on a volume whose writeback is held until a restart (a live switch to ordering=none
     * whose void record met a failed cache-device flush) ends at once as failed, with the hold's reason, instead of
     * never progressing: the fuzz's quiesce waited for it for ever. Found by the 2,000-seed run at the end of
     * 2026-12-02 (seed 214430, failing on that session's start too); fails without {@code DrainJobs.begin}'s check
     * (checked).
     */
    @Test
    void aDrainOnAVolumeHeldUntilRestartEndsWithTheHoldsReason() {
        FuzzScenario.runWithoutJournaled(214430);
    }

    /**
     * Proves a promoted read hit (docs/CACHING.md) never puts a stale copy over a write that landed while its cache
     * read was in flight: the promotion's fill registered only once the read had completed, so the write's race went
     * unseen and the old data replaced the new in the index. Found by FuzzTest's 500 seeds on the first build with
     * promotion, 2026-12-07 (seeds 47, 53, 65, 76, 139, 221); seed 76 fails without registering the fill before the
     * cache read (checked); 47 (a final read-back) is kept as a second shape, not checked without the fix.
     */
    @Test
    void aPromotedHitNeverOverwritesAWriteThatRacedItsCacheRead() {
        FuzzScenario.runWithTableKnobs(76);
        FuzzScenario.runWithTableKnobs(47);
    }

    /**
     * Proves a bucket that recovery left free in the generation it was last written under does not take the block
     * CRCs of its old data over to its new data (docs/FORMAT.md §9): the replay gave the free bucket its old CRCs, it
     * was handed out and written again at the same generation, and after the next crash the replay put the old CRCs
     * back beside the new ones, so a read of the new dirty data failed its block's check. Found by FuzzTest's 500
     * seeds on the first build with block CRCs (seeds 99 and 112); both fail without the allocator's same-generation
     * BucketGeneration record at handout (checked).
     */
    @Test
    void aBucketReusedAfterRecoveryInItsOldGenerationDropsItsOldBlockCrcs() {
        FuzzScenario.runWithoutJournaled(99);
        FuzzScenario.runWithoutJournaled(112);
    }

    /**
     * Proves a journaled group starts only when no write around the cache is on its way to the backing device: a
     * write-zeroes let through while its epoch was the newest zeroed the backing device while the group's log took the
     * old data of the same range; a power cut before the retire, and the open's replay put the old data back over the
     * zeroes. Found by the first 3,000 seeds with journaled volumes (seed 684); fails without the check of {@code
     * Volume.backingWritesInFlight} in {@code JournaledGroups} (checked).
     */
    @Test
    void aJournaledGroupWaitsForWritesAroundTheCacheToLand() {
        FuzzScenario.runJournaledOnDisks(684);
    }

    /**
     * Proves an extent across a chunk boundary of an object store is placed whole before its journaled group ends:
     * the chunk pass took its first piece, the scan skipped the rest (the extent overlapped a key in flight, whose
     * clean marking the group defers to its end), so the group retired its log with that piece unwritten and a newer
     * epoch of the group in place. Found by the first 3,000 seeds with journaled object stores (seed 347982, and 19
     * more); fails without {@code DirtyScanner}'s pieces around keys in flight (checked).
     */
    @Test
    void aJournaledGroupOnAnObjectStorePlacesEveryPieceOfAnExtentAcrossAChunkBoundary() {
        FuzzScenario.runJournaledObjectStores(347982);
    }

    /**
     * Proves a power cut leaves no request "in flight" in the counters writeback reads after it: the fault injector
     * around the backing disk kept the 22 requests the cut dropped as in flight, so the queue governor (which
     * re-bases its backing queue only when it sees the device empty) saw the disk's queue above its high goal for
     * good and held every pass, and a drain job never ended (seed 404872, found on 2026-12-04's first 12,000 seeds).
     * Fails without {@code FaultyDevice.powerOn} in {@code FuzzCacheSet.powerOn} (checked).
     */
    @Test
    void aDrainAfterAPowerCutIsNotHeldByRequestsTheCutDropped() {
        FuzzScenario.runJournaledObjectStores(404872);
    }

    /**
     * Proves clean copies kept across a power cut (docs/FORMAT.md §7 rule 10) are never older than the backing data:
     * every backing write that could make a covered copy stale waits for the journal record that removes it. Found by
     * the fuzz while building it on 2026-12-07, each failing the clean-copy oracle on the build before its fix (not
     * re-checked one by one against the final build): seed 3 (the ordered path over dirty data zeroed the backing
     * device under a covered copy it dropped only afterwards: {@code VolumeContext.dropClean}), 16 (an eviction's bump
     * still in memory when a write-zeroes found only stale keys: the hazard in {@code CleanCoverage.bumped}), 21 (a
     * backing write let through after the journal failed: {@code CoveredWrites}' sticky failure), 700150 (a committed
     * backing-log group replayed at open over a covered copy whose overwriting insert was lost: the log area held by
     * {@code CoveredWriteGate}), and 15 (recovery refused: old clean records of a bucket freed without a bump mapped
     * onto its new data: {@code BucketAllocator.quarantineDropped}).
     */
    @Test
    void cleanCopiesKeptAcrossAPowerCutAreNeverStale() {
        for (long seed : new long[] {3, 15, 16, 21, 700150}) {
            FuzzScenario.runWithoutVolumeChurn(seed);
        }
    }

    /**
     * Proves the damage oracle reads a removed backing-log volume where its data is: a power cut tore the header while
     * the volume was added back, and the oracle, reading at the default 1 MiB offset, compared the retired log with
     * the volume and cried data loss (seed 351, found by FuzzTest's 500 seeds on 2026-12-07, the first build that
     * churns backing-log volumes; fails with the old offset, checked). An oracle fix: the data was in place.
     */
    @Test
    void aRemovedBackingLogVolumeWithATornHeaderIsReadWhereItsDataIs() {
        FuzzScenario.run(351);
    }
}

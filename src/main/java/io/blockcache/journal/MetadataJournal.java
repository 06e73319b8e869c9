package io.blockcache.journal;

import io.blockcache.device.IoCallback;

/**
 * What the front end, writeback and the allocator see of the journal: append index updates, then ask for
 * everything appended so far to become durable.
 *
 * <p>Rules every caller follows (docs/FORMAT.md §7):
 * <ul>
 *   <li><b>Journal first, then apply.</b> A change is appended before it is applied to the in-memory index,
 *       so that anything the index operation triggers (a bucket emptied and its generation bumped) lands
 *       in the journal after the record that caused it.</li>
 *   <li><b>Data before metadata.</b> An extent is appended only after its data write completed; a commit
 *       flushes the cache device before writing the entry, so the data is durable before the record.</li>
 * </ul>
 *
 * <p>Units: sectors of 512 bytes; locations as bucket, offset in bucket (sectors) and generation.
 * Thread rule: the cache's loop thread.
 */
public interface MetadataJournal extends GenerationJournal {
    /**
     * Appends "volume {@code volumeId} maps {@code [startSector, + lengthSectors)} to this location".
     *
     * @param crcCutHeadSectors how far the extent starts into the bucket range its CRC covers (0 for a fresh
     *     write)
     * @param crcLengthSectors the length of the range the CRC covers
     * @param epoch the flush epoch of a dirty extent on a volume that keeps epoch order (recorded so that recovery
     *     restores the order, docs/FORMAT.md §5.2), or {@code JournalRecord.EPOCH_NOT_RECORDED}
     * @return the sequence of the journal entry that will hold the record
     */
    long appendInsert(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                      int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors,
                      long epoch);

    /**
     * Appends "blocks {@code [firstBlock, firstBlock + count)} of {@code bucket}, written under {@code generation},
     * have the CRC32Cs {@code crcs[from, from + count)}" (docs/FORMAT.md §9), for dirty data: its block CRCs then
     * survive a crash as its extents do.
     */
    long appendBlockCrcs(int bucket, int generation, int firstBlock, int count, int[] crcs, int from);

    /** Appends "volume {@code volumeId} no longer caches {@code [startSector, + lengthSectors)}". */
    long appendRemove(int volumeId, long startSector, int lengthSectors);

    /** Appends "mark clean what still lives at this location" (applied conditionally, like the index does). */
    long appendClean(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                     int generation);

    /**
     * Appends "every epoch recorded so far for volume {@code volumeId} is void" (docs/FORMAT.md §5.2, §7 rule 15): the
     * volume no longer follows them, so a recovery must not restore them.
     */
    long appendEpochsVoid(int volumeId);

    /**
     * Makes every record appended so far durable, then calls back with OK; or with an error if that could not be done,
     * after which the journal refuses to report anything as durable again (docs/ARCHITECTURE.md §5 item 5).
     */
    void commit(IoCallback callback);

    /** Sequence of the newest durable entry (0 before the first). */
    long durableSequence();
}

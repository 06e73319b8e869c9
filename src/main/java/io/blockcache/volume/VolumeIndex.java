package io.blockcache.volume;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.cache.CacheSpace;
import static io.blockcache.loop.Checks.check;

import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.journal.MetadataJournal;

/**
 * The extent index of one volume together with the journal that makes its changes durable. Every change
 * is appended to the journal first and applied to the index second (see {@link MetadataJournal}), in this
 * one place, so no caller can get the order wrong.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class VolumeIndex {
    /** Passed as the epoch of an insert that re-points an extent without changing its data (a GC move). */
    public static final long EPOCH_UNCHANGED = -1;

    /** Extents per scan slice when epoch tracking starts. */
    private static final int SEED_SLICE_EXTENTS = 4096;

    private final DirtyFinder dirtyFinder = new DirtyFinder();
    private final int volumeId;
    private final DirtyEpochs epochs = new DirtyEpochs();
    private final ExtentIndex index;
    private final MetadataJournal journal;
    private final CacheSpace space;
    private final EpochRecord record;
    private final PinnedRanges pins = new PinnedRanges();
    /** Told of every range a clean marking cleaned, or null (replication: docs/SCALE.md). */
    private CleanListener cleanListener;

    /** Wraps {@code index} of volume {@code volumeId}, whose listener must be {@code space}. */
    public VolumeIndex(int volumeId, ExtentIndex index, MetadataJournal journal, CacheSpace space) {
        this.volumeId = volumeId;
        this.index = index;
        this.journal = journal;
        this.space = space;
        this.record = new EpochRecord(volumeId, journal);
    }

    /**
     * The volume's pinned ranges (docs/CACHING.md "Pinning"): the front end fills their misses, GC keeps their data.
     * Held here, beside the extents, because GC sees a volume only through its index.
     */
    public PinnedRanges pins() {
        return pins;
    }

    /** The volume this index belongs to. */
    public int volumeId() {
        return volumeId;
    }

    /** The epochs of the dirty sectors (docs/WRITEBACK.md, "Epoch ordering"); read-only use outside this package. */
    public DirtyEpochs epochs() {
        return epochs;
    }

    /**
     * Starts ({@code on}) or stops keeping the epochs of dirty data. Starting right after a restart takes up the
     * epochs recovery rebuilt ({@link #restoreEpochs}) if every dirty sector has one; otherwise every dirty extent
     * there is joins {@link DirtyEpochs#ORDER_UNKNOWN} (none were kept while off; docs/WRITEBACK.md says what that
     * costs). Cost of starting: one or two scans of the index.
     */
    public void trackEpochs(boolean on) {
        if (on == epochs.tracking()) {
            return;
        }
        if (!on) {
            epochs.stopTracking();
            record.coarsened(); // no order in memory now: void what is on record first (docs/FORMAT.md §7 rule 15)
            return;
        }
        epochs.startTracking();
        boolean restored = epochs.recoveredPending() && seedEpochs(true);
        epochs.takeRecovered();
        if (!restored) {
            epochs.startTracking();
            seedEpochs(false);
            record.coarsened(); // recovered epochs, if any, are now one epoch of unknown order
        }
        checkEpochs();
    }

    /**
     * The volume is about to change while it keeps no epochs (a front-end write, trim or write-zeroes, or writeback
     * about to run unordered): recovered epochs, if any, no longer describe what the backing device will see, so they
     * are dropped, and voided on record before anything reaches the backing device ({@link #epochVoidPending}).
     */
    public void changingUntracked() {
        if (!epochs.tracking() && epochs.recoveredPending()) {
            epochs.changedUntracked();
            record.coarsened();
        }
    }

    /**
     * True while nothing may reach the backing device in an order coarser than the recorded epochs: the record that
     * voids them is not durable yet, or could not be made durable ({@link #epochVoidFailure}). Writeback starts no
     * pass and the front end sends nothing around the cache meanwhile.
     */
    public boolean epochVoidPending() {
        return record.pending();
    }

    /** Why the record voiding the epochs could not be made durable, or null. */
    public String epochVoidFailure() {
        return record.failure();
    }

    /** Sets who hears that a void record became durable ({@code null}) or failed (the reason); the volume, once. */
    void onEpochVoidSettled(java.util.function.Consumer<String> listener) {
        record.onSettled(listener);
    }

    /** Seeds every dirty extent's epoch, recovered or unknown; false at the first one without a recovered epoch. */
    private boolean seedEpochs(boolean recovered) {
        boolean[] known = {true};
        long cursor = 0;
        do { // bounded: each slice examines at most SEED_SLICE_EXTENTS, and the cursor only moves forward
            cursor = index.scan(cursor, ExtentLocation::dirty, SEED_SLICE_EXTENTS, SEED_SLICE_EXTENTS,
                    (start, length, location, crc, crcOffset, crcLength) -> {
                        if (!recovered) {
                            epochs.seed(start, length);
                        } else if (known[0]) {
                            known[0] = epochs.seedRecovered(start, length);
                        }
                    });
        } while (cursor != ExtentIndex.CURSOR_END && known[0]);
        return known[0];
    }

    /** After recovery, before the volume serves: the epochs replayed from the journal and the checkpoint. */
    public void restoreEpochs(DirtyEpochs recovered) {
        epochs.restore(recovered);
        if (epochs.recoveredPending()) {
            record.recorded(); // the journal or the checkpoint holds them
        }
    }

    /** The epoch to record with a dirty extent at {@code startSector}: {@link DirtyEpochs#recordedEpochAt}. */
    public long recordedEpochAt(long startSector) {
        return epochs.recordedEpochAt(startSector);
    }

    /**
     * The bookkeeping of epochs must match the index exactly (a dirty sector without an epoch could be written
     * back out of order). O(1): both keep a running count.
     */
    private void checkEpochs() {
        check(!epochs.tracking() || epochs.sectors() == index.dirtySectors(),
                "volume %s: epochs hold %s dirty sectors, the index %s", volumeId, epochs.sectors(),
                index.dirtySectors());
    }

    /** The underlying index, for read-only use (lookups, scans, statistics). */
    public ExtentIndex extents() {
        return index;
    }

    /**
     * Journals the block CRCs (docs/FORMAT.md §9) of the whole 4 KiB blocks of sectors {@code [offsetSectors,
     * offsetSectors + lengthSectors)} of {@code bucket}, which must all be in the table: for a copy of dirty data
     * (moving GC), whose block CRCs must survive a crash as its extents do.
     */
    public void journalBlockCrcs(int bucket, int generation, int offsetSectors, int lengthSectors) {
        int firstBlock = BlockChecksums.firstWholeBlock(offsetSectors);
        int endBlock = BlockChecksums.endWholeBlock(offsetSectors, lengthSectors);
        if (firstBlock < endBlock) {
            space.allocator().blockChecksums().journal(journal, bucket, generation, firstBlock, endBlock - firstBlock);
        }
    }

    /**
     * Applies an extent whose CRC covers the bucket range starting {@code crcCutHeadSectors} before it and
     * {@code crcLengthSectors} long (a fresh write: 0 and its own length); journals it first, dirty or clean.
     *
     * <p>A clean extent's record alone does not make it trusted after a crash: it copies data that may still sit
     * only in the backing device's volatile cache, and recovery keeps it only if its bucket's coverage (a record
     * appended once a backing flush completed, {@code cache.CleanCoverage}) holds it (docs/FORMAT.md §7 rules 7 and
     * 10). Its record is what lets a covered copy be found again after a crash, and, for a GC move, what keeps the
     * journaled place of a covered copy the same as the index's.
     *
     * @param epoch the epoch of a dirty extent's write ({@link DirtyEpochs}); {@link #EPOCH_UNCHANGED} for a move
     *     of an extent whose range already holds the same data (GC), which keeps the range's epoch
     */
    public void insertPiece(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors,
                            long epoch) {
        if (dirty) {
            // Recorded so that recovery restores the order (docs/FORMAT.md §5.2): a move keeps the range's epoch.
            long recorded = epoch == EPOCH_UNCHANGED ? epochs.recordedEpochAt(startSector)
                    : epochs.tracking() ? epoch : DirtyEpochs.ORDER_UNKNOWN;
            if (recorded != DirtyEpochs.ORDER_UNKNOWN) {
                record.recorded();
            }
            journal.appendInsert(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation,
                    true, crc32c, crcCutHeadSectors, crcLengthSectors, recorded);
        } else {
            journal.appendInsert(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation,
                    false, crc32c, crcCutHeadSectors, crcLengthSectors, DirtyEpochs.ORDER_UNKNOWN);
        }
        index.insert(startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c,
                crcCutHeadSectors, crcLengthSectors);
        if (epoch != EPOCH_UNCHANGED) {
            if (dirty) {
                epochs.set(startSector, lengthSectors, epoch);
            } else {
                epochs.clear(startSector, lengthSectors);
            }
        }
        checkEpochs();
    }

    /**
     * {@link #insertPiece(long, int, int, int, int, boolean, int, int, int, long)} with a dirty extent joining the
     * current epoch: for callers that fill an index directly (benches, tests), not the front end's write path.
     */
    public void insertPiece(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors) {
        insertPiece(startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c,
                crcCutHeadSectors, crcLengthSectors, epochs.current());
    }

    /** Journals and applies the removal of {@code [startSector, + lengthSectors)}; returns sectors removed. */
    public long remove(long startSector, int lengthSectors) {
        journal.appendRemove(volumeId, startSector, lengthSectors);
        long removed = index.remove(startSector, lengthSectors);
        epochs.clear(startSector, lengthSectors);
        checkEpochs();
        return removed;
    }

    /** Journals and applies a conditional clean marking (writeback); returns sectors cleaned. */
    public long markClean(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                          int generation) {
        journal.appendClean(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation);
        if (cleanListener != null) {
            reportCleaning(startSector, lengthSectors, ExtentLocation.pack(bucket, offsetInBucketSectors, generation,
                    true));
        }
        long cleaned = index.markClean(startSector, lengthSectors, bucket, offsetInBucketSectors, generation);
        if (cleaned > 0 && epochs.tracking()) {
            // Only the sectors still at that location were cleaned; a newer write's stay dirty in their epoch.
            index.lookup(startSector, lengthSectors, space, new LookupVisitor() {
                @Override
                public void hole(long start, int length) {
                    epochs.clear(start, length);
                }

                @Override
                public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                                   int crcLengthSectors) {
                    if (!ExtentLocation.dirty(location)) {
                        epochs.clear(start, length);
                    }
                }
            });
        }
        checkEpochs();
        return cleaned;
    }

    /** Sets (or, with null, removes) the listener told of each range a clean marking cleans. Loop thread. */
    public void setCleanListener(CleanListener listener) {
        this.cleanListener = listener;
    }

    /** Told, before the marking, of each piece of the range that still holds exactly {@code expected} (shifted). */
    private void reportCleaning(long startSector, int lengthSectors, long expected) {
        java.util.List<long[]> pieces = new java.util.ArrayList<>(2);
        index.lookup(startSector, lengthSectors, space, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                               int crcLengthSectors) {
                if (location == ExtentLocation.shifted(expected, (int) (start - startSector))) {
                    pieces.add(new long[] {start, length});
                }
            }
        });
        for (long[] piece : pieces) {
            cleanListener.cleaned(piece[0], (int) piece[1]);
        }
    }

    /** Told of each range a clean marking made clean. */
    @FunctionalInterface
    public interface CleanListener {
        /** {@code [startSector, + lengthSectors)} is clean now: its data is on the flushed backing device. */
        void cleaned(long startSector, int lengthSectors);
    }

    /**
     * True if any live dirty extent overlaps {@code [startSector, + lengthSectors)} (any length). Cost:
     * a lookup of the range, O(log n + pieces).
     */
    public boolean overlapsDirty(long startSector, long lengthSectors) {
        long position = startSector;
        long end = startSector + lengthSectors;
        dirtyFinder.found = false;
        while (position < end && !dirtyFinder.found) {
            int chunk = (int) Math.min(end - position, 1 << 30);
            index.lookup(position, chunk, space, dirtyFinder);
            position += chunk;
        }
        return dirtyFinder.found;
    }

    /**
     * The visitor of {@link #overlapsDirty}, one reused for every call (asked for every front-end write:
     * nothing allocated per request on the loop thread). A look-up does not call back into this index.
     */
    private static final class DirtyFinder implements LookupVisitor {
        private boolean found;

        @Override
        public void hole(long start, int length) {
        }

        @Override
        public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                           int crcLengthSectors) {
            found |= ExtentLocation.dirty(location);
        }
    }

    /** Visits the cached pieces and holes of a range (stale keys read as holes). */
    public void lookup(long startSector, int lengthSectors, LookupVisitor visitor) {
        index.lookup(startSector, lengthSectors, space, visitor);
    }
}

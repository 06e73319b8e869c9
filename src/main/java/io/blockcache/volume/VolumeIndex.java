package io.blockcache.volume;

import io.blockcache.cache.CacheSpace;
import io.blockcache.index.ExtentIndex;
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
    private final int volumeId;
    private final ExtentIndex index;
    private final MetadataJournal journal;
    private final CacheSpace space;

    /** Wraps {@code index} of volume {@code volumeId}, whose listener must be {@code space}. */
    public VolumeIndex(int volumeId, ExtentIndex index, MetadataJournal journal, CacheSpace space) {
        this.volumeId = volumeId;
        this.index = index;
        this.journal = journal;
        this.space = space;
    }

    /** The volume this index belongs to. */
    public int volumeId() {
        return volumeId;
    }

    /** The underlying index, for read-only use (lookups, scans, statistics). */
    public ExtentIndex extents() {
        return index;
    }

    /**
     * Applies an extent whose CRC covers the bucket range starting {@code crcCutHeadSectors} before it and
     * {@code crcLengthSectors} long (a fresh write: 0 and its own length); journals it first if it is dirty.
     *
     * <p>Why clean extents are not journaled: a clean extent copies data that may still sit only in the
     * backing device's volatile cache. Were its record durable before that data, a crash would leave the
     * cache claiming a copy of data the backing device lost, and a later eviction would make the block flip
     * back to older contents. Losing a clean extent in a crash costs only a miss. Checkpoints, which do
     * carry clean extents, flush the backing devices first.
     */
    public void insertPiece(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors) {
        if (dirty) {
            journal.appendInsert(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation,
                    true, crc32c, crcCutHeadSectors, crcLengthSectors);
        }
        index.insert(startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c,
                crcCutHeadSectors, crcLengthSectors);
    }

    /** Journals and applies the removal of {@code [startSector, + lengthSectors)}; returns sectors removed. */
    public long remove(long startSector, int lengthSectors) {
        journal.appendRemove(volumeId, startSector, lengthSectors);
        return index.remove(startSector, lengthSectors);
    }

    /** Journals and applies a conditional clean marking (writeback); returns sectors cleaned. */
    public long markClean(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                          int generation) {
        journal.appendClean(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation);
        return index.markClean(startSector, lengthSectors, bucket, offsetInBucketSectors, generation);
    }

    /**
     * True if any live dirty extent overlaps {@code [startSector, + lengthSectors)} (any length). Cost:
     * a lookup of the range, O(log n + pieces).
     */
    public boolean overlapsDirty(long startSector, long lengthSectors) {
        long position = startSector;
        long end = startSector + lengthSectors;
        boolean[] found = {false};
        LookupVisitor visitor = new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                               int crcLengthSectors) {
                found[0] |= io.blockcache.index.ExtentLocation.dirty(location);
            }
        };
        while (position < end && !found[0]) {
            int chunk = (int) Math.min(end - position, 1 << 30);
            index.lookup(position, chunk, space, visitor);
            position += chunk;
        }
        return found[0];
    }

    /** Visits the cached pieces and holes of a range (stale keys read as holes). */
    public void lookup(long startSector, int lengthSectors, LookupVisitor visitor) {
        index.lookup(startSector, lengthSectors, space, visitor);
    }
}

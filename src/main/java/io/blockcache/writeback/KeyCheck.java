package io.blockcache.writeback;

import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.volume.VolumeIndex;

/**
 * Checks that the index still holds a buffered key exactly: every sector of its range mapped, dirty, at the same
 * bucket, generation and offset. A key a front-end write, trim or write-zeroes touched since it was scanned fails.
 *
 * <p>Thread rule: the loop thread.
 */
final class KeyCheck implements LookupVisitor {
    private DirtyKey key;
    private boolean intact;

    /** True if {@code index} maps {@code key}'s whole range exactly as the key says. */
    boolean stillDirty(VolumeIndex index, DirtyKey candidate) {
        key = candidate;
        intact = true;
        index.lookup(candidate.startSector(), candidate.lengthSectors(), this);
        key = null;
        return intact;
    }

    @Override
    public void hole(long startSector, int lengthSectors) {
        intact = false;
    }

    @Override
    public void extent(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                       int crcLengthSectors) {
        long expected = ExtentLocation.shifted(key.location(), (int) (startSector - key.startSector()));
        if (location != expected) {
            intact = false;
        }
    }
}

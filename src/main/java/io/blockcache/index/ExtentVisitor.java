package io.blockcache.index;

/**
 * Receives cached extents (or pieces of them) from lookups and scans, in ascending backing order.
 *
 * <p>The CRC32C in {@code crc32c} covers the bucket range {@code [crcOffsetInBucketSectors,
 * crcOffsetInBucketSectors + crcLengthSectors)}, which contains the piece's own range; it is wider than the
 * piece when the piece was cut from a larger extent or clipped to a lookup range. Called on the owner
 * thread; must not modify the index.
 */
@FunctionalInterface
public interface ExtentVisitor {
    /**
     * One cached piece: backing sectors {@code [startSector, startSector + lengthSectors)} live at
     * {@code location} (see {@link ExtentLocation}).
     */
    void extent(long startSector, int lengthSectors, long location, int crc32c,
                int crcOffsetInBucketSectors, int crcLengthSectors);
}

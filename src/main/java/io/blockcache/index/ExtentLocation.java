package io.blockcache.index;

import static io.blockcache.loop.Checks.require;

/**
 * Static helpers that pack where an extent lives on the cache device into one {@code long}, so that
 * the index stores no object per extent.
 *
 * <pre>
 *  63  62 61                          31 30              16 15              0
 * +---+--+------------------------------+------------------+-----------------+
 * | 0 |D |  bucket index (31 bits)      | offset in bucket |  generation     |
 * |   |  |  0 .. 2^31-1                 | sectors (15 bits)|  (16 bits)      |
 * +---+--+------------------------------+------------------+-----------------+
 *  D = dirty bit. Bit 63 stays 0 so a location is never negative.
 * </pre>
 *
 * <p>Generations are 16 bits and wrap (bcache uses 8 bits); equality is the only comparison that means
 * anything. Pure functions: any thread.
 */
public final class ExtentLocation {
    /** Largest offset inside a bucket that fits the 15-bit field, in sectors. */
    public static final int OFFSET_IN_BUCKET_MAX_SECTORS = (1 << 15) - 1;
    /** Largest generation; the next bump wraps to 0. */
    public static final int GENERATION_MAX = 0xFFFF;

    private static final int OFFSET_SHIFT = 16;
    private static final int BUCKET_SHIFT = 31;
    private static final long DIRTY_BIT = 1L << 62;
    private static final long GENERATION_MASK = 0xFFFFL;
    private static final long OFFSET_MASK = 0x7FFFL;
    private static final long BUCKET_MASK = 0x7FFF_FFFFL;

    private ExtentLocation() {}

    /** Packs a location; every field is checked against its width. */
    public static long pack(int bucket, int offsetInBucketSectors, int generation, boolean dirty) {
        require(bucket >= 0, "bucket %d is negative", bucket);
        require(offsetInBucketSectors >= 0 && offsetInBucketSectors <= OFFSET_IN_BUCKET_MAX_SECTORS,
                "offset in bucket %d sectors outside [0, %d]", offsetInBucketSectors, OFFSET_IN_BUCKET_MAX_SECTORS);
        require(generation >= 0 && generation <= GENERATION_MAX,
                "generation %d outside [0, %d]", generation, GENERATION_MAX);
        return ((long) bucket << BUCKET_SHIFT) | ((long) offsetInBucketSectors << OFFSET_SHIFT)
                | generation | (dirty ? DIRTY_BIT : 0L);
    }

    /** Bucket index of a packed location. */
    public static int bucket(long location) {
        return (int) ((location >>> BUCKET_SHIFT) & BUCKET_MASK);
    }

    /** Offset inside the bucket, in sectors. */
    public static int offsetInBucketSectors(long location) {
        return (int) ((location >>> OFFSET_SHIFT) & OFFSET_MASK);
    }

    /** Bucket generation the location was written under (0..65535). */
    public static int generation(long location) {
        return (int) (location & GENERATION_MASK);
    }

    /** Whether the data at this location is newer than the backing store. */
    public static boolean dirty(long location) {
        return (location & DIRTY_BIT) != 0;
    }

    /** The same location with the dirty bit set to {@code dirty}. */
    public static long withDirty(long location, boolean dirty) {
        return dirty ? location | DIRTY_BIT : location & ~DIRTY_BIT;
    }

    /**
     * The same location moved {@code deltaSectors} further into its bucket (for a piece cut from the
     * front of an extent); {@code deltaSectors >= 0} and the result must still fit.
     */
    public static long shifted(long location, int deltaSectors) {
        int offset = offsetInBucketSectors(location) + deltaSectors;
        require(deltaSectors >= 0 && offset <= OFFSET_IN_BUCKET_MAX_SECTORS,
                "cannot shift offset %d by %d sectors", offsetInBucketSectors(location), deltaSectors);
        return (location & ~(OFFSET_MASK << OFFSET_SHIFT)) | ((long) offset << OFFSET_SHIFT);
    }

    /** Readable form for messages and tests. */
    public static String toString(long location) {
        return "bucket " + bucket(location) + " +" + offsetInBucketSectors(location) + " gen "
                + generation(location) + (dirty(location) ? " dirty" : " clean");
    }
}

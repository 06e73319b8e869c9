package io.blockcache.index;

/**
 * A B+tree leaf: up to {@code capacity} extents in parallel primitive arrays, sorted by start sector and
 * non-overlapping, linked to its neighbours for ordered scans. Per extent 24 bytes when full: start and length
 * packed in one {@code long} (8 B, below), location (8 B), CRC32C (4 B), CRC span (4 B).
 *
 * <pre>
 *  63  62                                        16 15                0
 * +---+-------------------------------------------+-------------------+
 * | 0 | start sector (47 bits, < 2^47 = 64 PiB)   | length in sectors |
 * +---+-------------------------------------------+-------------------+
 * </pre>
 *
 * Start sits in the high bits, so packed values sort like their starts. Length is 1..16384
 * ({@link ExtentIndex#EXTENT_LENGTH_MAX_SECTORS}), which fits 16 bits; start is below
 * {@link ExtentIndex#SECTOR_LIMIT}, which {@link ExtentIndex} checks before an insert.
 */
final class LeafNode {
    private static final int LENGTH_BITS = 16;
    private static final long LENGTH_MASK = (1L << LENGTH_BITS) - 1;

    final long[] startAndLength;
    final long[] location;
    final int[] crc;
    final int[] crcSpan;
    int count;
    LeafNode prev;
    LeafNode next;

    LeafNode(int capacity) {
        startAndLength = new long[capacity];
        location = new long[capacity];
        crc = new int[capacity];
        crcSpan = new int[capacity];
    }

    int capacity() {
        return location.length;
    }

    /** Start sector of entry {@code i}. */
    long start(int i) {
        return startAndLength[i] >>> LENGTH_BITS;
    }

    /** Length of entry {@code i}, in sectors. */
    int length(int i) {
        return (int) (startAndLength[i] & LENGTH_MASK);
    }

    /** Sets the length of entry {@code i}; its start stays, so the order holds. */
    void setLength(int i, int lengthSectors) {
        startAndLength[i] = (startAndLength[i] & ~LENGTH_MASK) | lengthSectors;
    }

    /** Exclusive end sector of entry {@code i}. */
    long end(int i) {
        return start(i) + length(i);
    }

    /** Index of the last entry whose start is {@code <= key}, or -1 when every entry starts after it. */
    int floorIndex(long key) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (start(mid) <= key) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return high;
    }

    void insertAt(int i, long startSector, int lengthSectors, long loc, int crc32c, int span) {
        copy(this, i, this, i + 1, count - i);
        startAndLength[i] = (startSector << LENGTH_BITS) | lengthSectors;
        location[i] = loc;
        crc[i] = crc32c;
        crcSpan[i] = span;
        count++;
    }

    void removeAt(int i) {
        copy(this, i + 1, this, i, count - i - 1);
        count--;
    }

    /** Copies {@code n} entries; overlapping ranges in the same leaf are handled like System.arraycopy. */
    static void copy(LeafNode src, int srcPos, LeafNode dst, int dstPos, int n) {
        System.arraycopy(src.startAndLength, srcPos, dst.startAndLength, dstPos, n);
        System.arraycopy(src.location, srcPos, dst.location, dstPos, n);
        System.arraycopy(src.crc, srcPos, dst.crc, dstPos, n);
        System.arraycopy(src.crcSpan, srcPos, dst.crcSpan, dstPos, n);
    }
}

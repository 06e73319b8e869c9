package io.blockcache.index;

/**
 * A B+tree leaf: up to {@code capacity} extents in parallel primitive arrays, sorted by start sector and
 * non-overlapping, linked to its neighbours for ordered scans. Per extent: start (8 B), length (4 B),
 * location (8 B), CRC32C (4 B), CRC span (4 B) = 28 bytes when full.
 */
final class LeafNode {
    final long[] start;
    final int[] length;
    final long[] location;
    final int[] crc;
    final int[] crcSpan;
    int count;
    LeafNode prev;
    LeafNode next;

    LeafNode(int capacity) {
        start = new long[capacity];
        length = new int[capacity];
        location = new long[capacity];
        crc = new int[capacity];
        crcSpan = new int[capacity];
    }

    int capacity() {
        return start.length;
    }

    /** Exclusive end sector of entry {@code i}. */
    long end(int i) {
        return start[i] + length[i];
    }

    /** Index of the last entry whose start is {@code <= key}, or -1 when every entry starts after it. */
    int floorIndex(long key) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (start[mid] <= key) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return high;
    }

    void insertAt(int i, long startSector, int lengthSectors, long loc, int crc32c, int span) {
        copy(this, i, this, i + 1, count - i);
        start[i] = startSector;
        length[i] = lengthSectors;
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
        System.arraycopy(src.start, srcPos, dst.start, dstPos, n);
        System.arraycopy(src.length, srcPos, dst.length, dstPos, n);
        System.arraycopy(src.location, srcPos, dst.location, dstPos, n);
        System.arraycopy(src.crc, srcPos, dst.crc, dstPos, n);
        System.arraycopy(src.crcSpan, srcPos, dst.crcSpan, dstPos, n);
    }
}

package io.blockcache.sim;

import java.util.BitSet;

/**
 * The file system under a sparse file, as far as running out of space goes: which 4 KiB blocks of the device have
 * been written (allocated), and an optional ceiling on how many bytes may be allocated. A write that only touches
 * allocated blocks always fits (a tmpfs or ext4 file overwrites its own pages in place); a write that needs new
 * blocks beyond the ceiling gets ENOSPC and allocates nothing. A discard punches a hole and frees its whole blocks.
 * Lifting the ceiling is "the operator freed space on the file system".
 *
 * <p>Thread rule: the owning loop's thread.
 */
public final class SpaceBudget {
    /** The file system's allocation unit: the page of tmpfs, the block of ext4 and XFS. */
    public static final int BLOCK_BYTES = 4096;
    /** No ceiling. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final BitSet allocated = new BitSet();
    private long allocatedBytesMax = UNLIMITED;
    private long refusedWrites;

    /** Sets the ceiling on allocated bytes; {@link #UNLIMITED} lifts it. Blocks already allocated stay. */
    public void setAllocatedBytesMax(long bytesMax) {
        if (bytesMax < 0) {
            throw new IllegalArgumentException("allocatedBytesMax must be >= 0: " + bytesMax);
        }
        allocatedBytesMax = bytesMax;
    }

    /** The ceiling in bytes ({@link #UNLIMITED} when none). */
    public long allocatedBytesMax() {
        return allocatedBytesMax;
    }

    /** Bytes allocated now: every 4 KiB block written at least once and not discarded since. */
    public long allocatedBytes() {
        return (long) allocated.cardinality() * BLOCK_BYTES;
    }

    /** Writes refused for want of space so far. */
    public long refusedWrites() {
        return refusedWrites;
    }

    /**
     * Admits a write of {@code [offsetBytes, + lengthBytes)}: allocates the blocks it needs and returns true, or,
     * if they would take the allocated bytes past the ceiling, allocates nothing and returns false.
     */
    public boolean admitWrite(long offsetBytes, long lengthBytes) {
        if (lengthBytes <= 0) {
            return true;
        }
        int first = firstBlock(offsetBytes);
        int end = endBlock(offsetBytes, lengthBytes);
        long newBlocks = (end - first) - allocated.get(first, end).cardinality();
        if (newBlocks > 0 && allocatedBytesMax != UNLIMITED
                && allocatedBytes() + newBlocks * BLOCK_BYTES > allocatedBytesMax) {
            refusedWrites++;
            return false;
        }
        allocated.set(first, end);
        return true;
    }

    /** A discard of {@code [offsetBytes, + lengthBytes)} frees the blocks it covers whole (a punched hole). */
    public void discard(long offsetBytes, long lengthBytes) {
        long firstWhole = (offsetBytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
        long endWhole = (offsetBytes + lengthBytes) / BLOCK_BYTES;
        if (endWhole > firstWhole) {
            allocated.clear(Math.toIntExact(firstWhole), Math.toIntExact(endWhole));
        }
    }

    private static int firstBlock(long offsetBytes) {
        return Math.toIntExact(offsetBytes / BLOCK_BYTES);
    }

    private static int endBlock(long offsetBytes, long lengthBytes) {
        return Math.toIntExact((offsetBytes + lengthBytes + BLOCK_BYTES - 1) / BLOCK_BYTES);
    }
}

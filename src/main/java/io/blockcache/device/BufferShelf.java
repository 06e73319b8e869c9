package io.blockcache.device;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Free buffers kept for reuse in power-of-two size classes, up to a bound of retained bytes: the part that the NBD
 * server's payload pool ({@code nbd.PayloadBuffers}) and writeback's run buffers ({@code writeback.RunBuffers})
 * share. A class keeps only buffers of exactly its size; what is not kept is left to the garbage collector.
 *
 * <p>Thread rule: not thread-safe; an owner used from several threads synchronises around it.
 */
public final class BufferShelf {
    private final int smallestClassBytes;
    private final int largestClassBytes;
    private final long retainedBytesMax;
    private final ArrayDeque<ByteBuffer>[] free;
    private long retainedBytes;

    /**
     * @param smallestClassBytes the smallest class, a power of two
     * @param largestClassBytes the largest class, a power of two at least the smallest
     * @param retainedBytesMax free bytes kept at most
     */
    @SuppressWarnings("unchecked")
    public BufferShelf(int smallestClassBytes, int largestClassBytes, long retainedBytesMax) {
        if (Integer.bitCount(smallestClassBytes) != 1 || Integer.bitCount(largestClassBytes) != 1
                || largestClassBytes < smallestClassBytes || retainedBytesMax < 0) {
            throw new IllegalArgumentException("size classes " + smallestClassBytes + ".." + largestClassBytes
                    + " must be powers of two in order, retained bytes " + retainedBytesMax + " not negative");
        }
        this.smallestClassBytes = smallestClassBytes;
        this.largestClassBytes = largestClassBytes;
        this.retainedBytesMax = retainedBytesMax;
        this.free = new ArrayDeque[sizeClass(largestClassBytes, smallestClassBytes, largestClassBytes) + 1];
        for (int i = 0; i < free.length; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    /**
     * The index of the smallest class from {@code smallestClassBytes} to {@code largestClassBytes} (powers of two)
     * that holds {@code lengthBytes}, or -1 if it is larger than every class.
     */
    public static int sizeClass(int lengthBytes, int smallestClassBytes, int largestClassBytes) {
        if (lengthBytes > largestClassBytes) {
            return -1;
        }
        int rounded = Math.max(smallestClassBytes, Integer.highestOneBit(Math.max(1, lengthBytes - 1)) << 1);
        return Integer.numberOfTrailingZeros(rounded) - Integer.numberOfTrailingZeros(smallestClassBytes);
    }

    /** {@link #sizeClass(int, int, int)} with this shelf's classes. */
    public int sizeClass(int lengthBytes) {
        return sizeClass(lengthBytes, smallestClassBytes, largestClassBytes);
    }

    /** The size of the buffers of class {@code sizeClass}. */
    public int classBytes(int sizeClass) {
        return smallestClassBytes << sizeClass;
    }

    /** A kept buffer of class {@code sizeClass} (its position and limit as it was given), or null if none. */
    public ByteBuffer poll(int sizeClass) {
        ByteBuffer buffer = free[sizeClass].pollLast();
        if (buffer != null) {
            retainedBytes -= buffer.capacity();
        }
        return buffer;
    }

    /**
     * Keeps {@code buffer} for reuse if its capacity is exactly a class size and the bound allows.
     *
     * @return true if kept
     */
    public boolean keep(ByteBuffer buffer) {
        int capacity = buffer.capacity();
        int sizeClass = sizeClass(capacity);
        if (sizeClass < 0 || classBytes(sizeClass) != capacity || retainedBytes + capacity > retainedBytesMax) {
            return false;
        }
        free[sizeClass].addLast(buffer);
        retainedBytes += capacity;
        return true;
    }

    /** Free bytes kept now. */
    public long retainedBytes() {
        return retainedBytes;
    }
}

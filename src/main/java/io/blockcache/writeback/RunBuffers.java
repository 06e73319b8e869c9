package io.blockcache.writeback;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Direct buffers for writeback runs ({@link WritebackRun}), reused from run to run of one volume.
 *
 * <p>Why: a run's buffer is read from the cache device and written to the backing device. A heap buffer goes
 * through a JDK temporary direct buffer on both calls (two extra copies of every byte written back), and runs of
 * up to 1 MiB were G1's "humongous" objects, which started concurrent cycles and held regions (docs/BENCHMARKS.md,
 * "Process memory", session 8). A direct buffer is read into and written from as it is. Buffers start at a 4 KiB
 * address, so a device opened with O_DIRECT needs no bounce buffer either.
 *
 * <p>Sizes: power-of-two classes from {@value #SMALLEST_CLASS_BYTES} to {@value #LARGEST_CLASS_BYTES} bytes; a
 * longer run gets a heap buffer as before (rare: disk runs are cut at {@code backing_io_max_sectors}, chunks are 4
 * MiB). Bounds: buffers in use are bounded by writeback's own in-flight limits; free buffers kept, by
 * {@link #RETAINED_BYTES_MAX}; past that a returned buffer is dropped for the collector.
 *
 * <p>Contents: a buffer is handed out with old bytes in it. A run overwrites every byte before it writes: its keys
 * (and a whole chunk's fills) cover it exactly, which {@link WritebackRun} checks when it is built.
 *
 * <p>Thread rule: the loop thread.
 */
final class RunBuffers {
    /** Smallest class: one page. */
    static final int SMALLEST_CLASS_BYTES = 4 << 10;
    /** Largest pooled class: one object-store chunk (4 MiB), above a disk run's usual 1 MiB. */
    static final int LARGEST_CLASS_BYTES = 4 << 20;
    /** Free bytes kept per volume: 16 runs of 1 MiB. */
    static final long RETAINED_BYTES_MAX = 16L << 20;
    /** Address alignment of every pooled buffer. */
    static final int ALIGNMENT_BYTES = 4096;

    private static final int CLASS_COUNT = Integer.numberOfTrailingZeros(LARGEST_CLASS_BYTES)
            - Integer.numberOfTrailingZeros(SMALLEST_CLASS_BYTES) + 1;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<ByteBuffer>[] free = new ArrayDeque[CLASS_COUNT];
    private long retainedBytes;
    private long allocated;

    RunBuffers() {
        for (int i = 0; i < CLASS_COUNT; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    /**
     * A buffer with position 0 and limit {@code lengthBytes}, direct unless longer than the largest class; its
     * contents are unspecified. Give it back with {@link #give} once the run's backing write has completed.
     */
    ByteBuffer take(int lengthBytes) {
        if (lengthBytes <= 0) {
            throw new IllegalArgumentException("run buffer of " + lengthBytes + " bytes");
        }
        if (lengthBytes > LARGEST_CLASS_BYTES) {
            return ByteBuffer.allocate(lengthBytes);
        }
        int sizeClass = sizeClass(lengthBytes);
        ByteBuffer buffer = free[sizeClass].pollLast();
        if (buffer != null) {
            retainedBytes -= buffer.capacity();
        } else {
            int classBytes = SMALLEST_CLASS_BYTES << sizeClass;
            buffer = ByteBuffer.allocateDirect(classBytes + ALIGNMENT_BYTES).alignedSlice(ALIGNMENT_BYTES);
            allocated++;
        }
        return buffer.clear().limit(lengthBytes);
    }

    /** Takes back a buffer from {@link #take}; heap buffers, and any past the retained bound, are dropped. */
    void give(ByteBuffer buffer) {
        if (!buffer.isDirect() || retainedBytes + buffer.capacity() > RETAINED_BYTES_MAX) {
            return;
        }
        // A class's buffers have at least its size: alignedSlice may leave a little more than asked for.
        int sizeClass = Math.min(CLASS_COUNT - 1, sizeClass(Integer.highestOneBit(buffer.capacity())));
        free[sizeClass].addLast(buffer);
        retainedBytes += buffer.capacity();
    }

    /** Free bytes kept now. */
    long retainedBytes() {
        return retainedBytes;
    }

    /** Direct buffers allocated so far (a pool that works allocates few). */
    long allocated() {
        return allocated;
    }

    /** The smallest class holding {@code lengthBytes} (at most {@link #LARGEST_CLASS_BYTES}). */
    private static int sizeClass(int lengthBytes) {
        int classBytes = Math.max(SMALLEST_CLASS_BYTES, Integer.highestOneBit(lengthBytes - 1) << 1);
        return Integer.numberOfTrailingZeros(classBytes) - Integer.numberOfTrailingZeros(SMALLEST_CLASS_BYTES);
    }
}

package io.blockcache.writeback;

import io.blockcache.device.DirectBufferPool;
import java.nio.ByteBuffer;

/**
 * Direct buffers for writeback runs ({@link WritebackRun}), reused from run to run of one volume.
 *
 * <p>Why: a run's buffer is read from the cache device and written to the backing device. A heap buffer goes
 * through a JDK temporary direct buffer on both calls (two extra copies of every byte written back), and runs of
 * up to 1 MiB were G1's "humongous" objects, which started concurrent cycles and held regions (docs/BENCHMARKS.md,
 * "Process memory", 2026-12-02). A direct buffer is read into and written from as it is. Buffers start at a 4 KiB
 * address, so a device opened with O_DIRECT needs no bounce buffer either.
 *
 * <p>Sizes: power-of-two classes from {@value #SMALLEST_CLASS_BYTES} to {@value #LARGEST_CLASS_BYTES} bytes; a
 * longer run gets a heap buffer as before (an object store's 4 MiB chunks, which the launcher counts in the heap,
 * or disk runs past the default {@code backing_io_max_sectors}). Bounds, per volume: direct buffers handed out
 * at most {@link #IN_USE_BYTES_MAX} bytes (past that, heap buffers: writeback's knobs allow far more in flight than
 * that), free buffers kept at most {@link #RETAINED_BYTES_MAX}, past which a returned buffer is dropped for the
 * collector. The launcher sizes direct memory with both ({@code cli.JvmSizing}).
 *
 * <p>Contents: a buffer is handed out with old bytes in it. A run overwrites every byte before it writes: its keys
 * (and a whole chunk's fills) cover it exactly, which {@link WritebackRun} checks when it is built.
 *
 * <p>The pool itself is a {@link DirectBufferPool}; this class holds writeback's bounds.
 *
 * <p>Thread rule: the loop thread.
 */
public final class RunBuffers {
    /** Smallest class: one page. */
    static final int SMALLEST_CLASS_BYTES = 4 << 10;
    /** Largest pooled class: a disk run of the default {@code backing_io_max_sectors} (1 MiB). */
    static final int LARGEST_CLASS_BYTES = 1 << 20;
    /** Direct bytes handed out per volume at most: 64 runs of 1 MiB, the default keys in flight. */
    public static final long IN_USE_BYTES_MAX = 64L << 20;
    /** Free bytes kept per volume: 16 runs of 1 MiB. */
    public static final long RETAINED_BYTES_MAX = 16L << 20;
    /** Address alignment of every pooled buffer. */
    static final int ALIGNMENT_BYTES = DirectBufferPool.ALIGNMENT_BYTES;

    private final DirectBufferPool pool = new DirectBufferPool(SMALLEST_CLASS_BYTES, LARGEST_CLASS_BYTES,
            IN_USE_BYTES_MAX, RETAINED_BYTES_MAX);

    /**
     * A buffer with position 0 and limit {@code lengthBytes}: direct, unless longer than the largest class or past
     * {@link #IN_USE_BYTES_MAX} handed out (then heap); its contents are unspecified. Give it back with
     * {@link #give} once the run's backing write has completed.
     */
    ByteBuffer take(int lengthBytes) {
        return pool.take(lengthBytes);
    }

    /** Takes back a buffer from {@link #take}; heap buffers, and any past the retained bound, are dropped. */
    void give(ByteBuffer buffer) {
        pool.give(buffer);
    }

    /** Free bytes kept now. */
    long retainedBytes() {
        return pool.retainedBytes();
    }

    /** Direct bytes handed out and not yet given back. */
    long inUseBytes() {
        return pool.inUseBytes();
    }

    /** Direct buffers allocated so far (a pool that works allocates few). */
    long allocated() {
        return pool.allocated();
    }
}

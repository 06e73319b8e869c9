package io.blockcache.nbd;

import io.blockcache.device.BufferShelf;
import java.nio.ByteBuffer;

/**
 * Direct buffers for the WRITE payloads, READ replies and CACHE chunks of every connection of a server, reused
 * from request to request.
 *
 * <p>Why direct, and why pooled: the JDK moves a heap buffer through a temporary direct buffer (one extra copy)
 * on every socket and {@code FileChannel} call, and a fresh heap buffer per request costs its zeroing and GC
 * (a profile of 1 MiB writes showed allocation and the extra copies as the largest costs). A direct buffer is
 * read from the socket, written to the cache file and written to the socket with no copy in the JVM. Buffers
 * start at a 4 KiB-aligned address, so a cache device opened with O_DIRECT needs no bounce buffer either.
 *
 * <p>Sizes: requests are served from power-of-two classes from {@value #SMALLEST_CLASS_BYTES} bytes to
 * {@value #LARGEST_CLASS_BYTES} bytes; a larger request (rare: clients split at the preferred block size) gets
 * a buffer of its own, rounded up to 4 KiB, that is not kept. {@link #directBytes} says in advance what a
 * request's buffer will take, so the {@link BufferBudget} is charged the real direct memory.
 *
 * <p>Bounds: buffers in use are bounded by the server's {@link BufferBudget}; free buffers kept for reuse, over
 * all connections, by {@link #RETAINED_BYTES_MAX}. Past that, a returned buffer is dropped and the garbage
 * collector frees its memory. One pool for the server (not one per connection) so that the memory kept for
 * reuse does not grow with the number of connections.
 *
 * <p>Thread rule: any thread (readers take buffers, writers give them back); the short critical sections are
 * synchronised.
 */
final class PayloadBuffers {
    /** Smallest class: one page, the smallest block clients send in practice. */
    static final int SMALLEST_CLASS_BYTES = 4 << 10;
    /** Largest pooled class: 4 MiB, above every client's usual preferred block size (fio's 1 MiB jobs, qemu). */
    static final int LARGEST_CLASS_BYTES = 4 << 20;
    /**
     * Free bytes kept for the server (capacity; with each buffer's alignment page at most twice that in direct
     * memory): 64 requests of 1 MiB, so fio at iodepth 32 on two jobs never allocates.
     */
    static final long RETAINED_BYTES_MAX = 64L << 20;
    /** Address alignment of every buffer: the largest logical block size O_DIRECT asks for in practice. */
    static final int ALIGNMENT_BYTES = 4096;

    /** Guarded by this. */
    private final BufferShelf free = new BufferShelf(SMALLEST_CLASS_BYTES, LARGEST_CLASS_BYTES, RETAINED_BYTES_MAX);
    private long allocatedCount;

    /** Allocates {@code capacity + ALIGNMENT_BYTES} direct bytes; tests replace it to make allocation fail. */
    private final java.util.function.IntFunction<ByteBuffer> allocator;

    PayloadBuffers() {
        this(ByteBuffer::allocateDirect);
    }

    /** @param allocator makes a direct buffer of the given capacity (or throws {@link OutOfMemoryError}) */
    PayloadBuffers(java.util.function.IntFunction<ByteBuffer> allocator) {
        this.allocator = allocator;
    }

    /**
     * A direct buffer with position 0 and limit {@code lengthBytes}; its contents are unspecified. The caller
     * owns it until it hands it back with {@link #release}.
     *
     * @throws OutOfMemoryError if the JVM's direct memory is used up (the caller's to handle: it is a client's
     *     request that fails, not the server)
     */
    ByteBuffer take(int lengthBytes) {
        if (lengthBytes < 0) {
            throw new IllegalArgumentException("negative buffer length " + lengthBytes);
        }
        int sizeClass = sizeClass(lengthBytes);
        if (sizeClass < 0) {
            return allocate(roundedBytes(lengthBytes)).limit(lengthBytes);
        }
        ByteBuffer buffer;
        synchronized (this) {
            buffer = free.poll(sizeClass);
        }
        if (buffer == null) {
            buffer = allocate(SMALLEST_CLASS_BYTES << sizeClass);
        }
        return buffer.clear().limit(lengthBytes);
    }

    /** Gives back a buffer from {@link #take}; nobody may use it (or a view of it) afterwards. */
    void release(ByteBuffer buffer) {
        synchronized (this) {
            free.keep(buffer); // an unpooled large buffer, or one past the bound: the garbage collector frees it
        }
    }

    /** The capacity {@link #take} gives a request of {@code lengthBytes}: a multiple of 4 KiB. */
    static long capacityBytes(int lengthBytes) {
        int sizeClass = sizeClass(lengthBytes);
        return sizeClass < 0 ? roundedBytes(lengthBytes) : (long) SMALLEST_CLASS_BYTES << sizeClass;
    }

    /**
     * The direct memory a buffer for {@code lengthBytes} takes: its capacity and the page allocated beyond it to
     * align it. What a request is charged against the {@link BufferBudget}; a multiple of 4 KiB.
     */
    static long directBytes(int lengthBytes) {
        return capacityBytes(lengthBytes) + ALIGNMENT_BYTES;
    }

    /** Free bytes kept for reuse now. */
    synchronized long retainedBytes() {
        return free.retainedBytes();
    }

    /** Buffers allocated so far (a pool that works allocates few). */
    synchronized long allocatedCount() {
        return allocatedCount;
    }

    /** The class index that holds {@code lengthBytes}, or -1 if it is larger than every class. */
    private static int sizeClass(int lengthBytes) {
        return BufferShelf.sizeClass(lengthBytes, SMALLEST_CLASS_BYTES, LARGEST_CLASS_BYTES);
    }

    private static int roundedBytes(int lengthBytes) {
        return (lengthBytes + ALIGNMENT_BYTES - 1) & -ALIGNMENT_BYTES;
    }

    /** A new aligned direct buffer of exactly {@code capacityBytes}, a multiple of the alignment. */
    private ByteBuffer allocate(int capacityBytes) {
        synchronized (this) {
            allocatedCount++;
        }
        return allocator.apply(capacityBytes + ALIGNMENT_BYTES).alignedSlice(ALIGNMENT_BYTES)
                .limit(capacityBytes).slice();
    }
}

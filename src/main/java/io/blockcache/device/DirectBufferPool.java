package io.blockcache.device;

import java.nio.ByteBuffer;

/**
 * Direct buffers in power-of-two size classes, reused by one thread, with two bounds: bytes handed out (past it,
 * heap buffers) and free bytes kept (past it, a returned buffer is left to the collector). What writeback's run
 * buffers ({@code writeback.RunBuffers}) and the front end's read-miss fills ({@code volume.ReadFill}) share.
 *
 * <p>Why direct: such a buffer is written to a device (and read into) as it is. A heap buffer goes through a JDK
 * temporary direct buffer on every call (an extra copy of every byte), and a new one per request is garbage the
 * collector must chase ("nothing allocated per steady-state request"). Buffers start at a 4 KiB address,
 * so a device opened with O_DIRECT needs no bounce buffer either.
 *
 * <p>Contents: a buffer is handed out with old bytes in it; the caller overwrites what it uses.
 *
 * <p>Thread rule: not thread-safe; one owner thread (the loop).
 */
public final class DirectBufferPool {
    /** Address alignment of every pooled buffer. */
    public static final int ALIGNMENT_BYTES = 4096;

    private final BufferShelf free;
    private final long inUseBytesMax;
    private long inUseBytes;
    private long allocated;

    /**
     * @param smallestClassBytes the smallest class, a power of two
     * @param largestClassBytes the largest class, a power of two; longer buffers are heap buffers
     * @param inUseBytesMax direct bytes handed out at most
     * @param retainedBytesMax free bytes kept at most
     */
    public DirectBufferPool(int smallestClassBytes, int largestClassBytes, long inUseBytesMax,
                            long retainedBytesMax) {
        this.free = new BufferShelf(smallestClassBytes, largestClassBytes, retainedBytesMax);
        this.inUseBytesMax = inUseBytesMax;
    }

    /**
     * A buffer with position 0 and limit {@code lengthBytes}: direct, unless longer than the largest class or past
     * the bytes handed out at most (then heap); its contents are unspecified. Give it back with {@link #give} once
     * no I/O uses it any more.
     */
    public ByteBuffer take(int lengthBytes) {
        if (lengthBytes <= 0) {
            throw new IllegalArgumentException("buffer of " + lengthBytes + " bytes");
        }
        int sizeClass = free.sizeClass(lengthBytes);
        if (sizeClass < 0 || inUseBytes + free.classBytes(sizeClass) > inUseBytesMax) {
            return ByteBuffer.allocate(lengthBytes);
        }
        ByteBuffer buffer = free.poll(sizeClass);
        if (buffer == null) {
            int classBytes = free.classBytes(sizeClass);
            buffer = ByteBuffer.allocateDirect(classBytes + ALIGNMENT_BYTES).alignedSlice(ALIGNMENT_BYTES)
                    .limit(classBytes).slice();
            allocated++;
        }
        inUseBytes += buffer.capacity();
        return buffer.clear().limit(lengthBytes);
    }

    /** Takes back a buffer from {@link #take}; heap buffers, and any past the retained bound, are dropped. */
    public void give(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            return;
        }
        inUseBytes -= buffer.capacity();
        free.keep(buffer);
    }

    /** Free bytes kept now. */
    public long retainedBytes() {
        return free.retainedBytes();
    }

    /** Direct bytes handed out and not yet given back. */
    public long inUseBytes() {
        return inUseBytes;
    }

    /** Direct buffers allocated so far (a pool that works allocates few). */
    public long allocated() {
        return allocated;
    }
}

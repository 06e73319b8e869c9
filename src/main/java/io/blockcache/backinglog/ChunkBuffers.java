package io.blockcache.backinglog;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Heap buffers of {@link LogGroupWriter#CHUNK_BYTES_MAX} for log chunks, kept between groups: a group of 256 MiB passes
 * 256 of them. Heap, not direct: direct buffers are freed only when the garbage collector finds them, which a heap
 * under little pressure does late, and the first build with direct chunks grew a test JVM past 7 GB of native memory
 * until the kernel killed it; the devices copy heap buffers through their own bounce buffers. At most {@link
 * #RETAINED_MAX} are kept; larger buffers (a record above 1 MiB) are never kept.
 *
 * <p>Thread rule: one thread (the loop).
 */
public final class ChunkBuffers {
    /** Buffers kept for reuse: enough for the chunks a writer has in flight at once. */
    public static final int RETAINED_MAX = 8;

    private final ArrayDeque<ByteBuffer> spare = new ArrayDeque<>();

    /** A buffer of at least {@code capacityBytes}, contents unspecified, position 0, limit its capacity. */
    ByteBuffer take(int capacityBytes) {
        if (capacityBytes <= LogGroupWriter.CHUNK_BYTES_MAX && !spare.isEmpty()) {
            return spare.pollFirst().clear();
        }
        return ByteBuffer.allocate(Math.max(capacityBytes, LogGroupWriter.CHUNK_BYTES_MAX));
    }

    /** Gives back a buffer no device holds any more. */
    void give(ByteBuffer buffer) {
        if (buffer.capacity() == LogGroupWriter.CHUNK_BYTES_MAX && spare.size() < RETAINED_MAX) {
            spare.addFirst(buffer);
        }
    }
}

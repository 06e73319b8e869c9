package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DirectBufferPool;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The fill of one read-miss piece into the cache: a copy of the bytes read from the backing device (the reader owns
 * its buffer and reuses it once the read completes), written as a clean {@link CachedWrite}, and the end of its
 * in-flight entry when that write is done.
 *
 * <p>Reused (nothing allocated per steady-state request on the loop thread): a fill comes from the
 * volume's free list and goes back there when its write completes; its copy is a buffer from the volume's
 * {@link DirectBufferPool} (direct: the cache device writes it as it is, where a heap copy took a JDK temporary
 * direct buffer and one more copy per fill), given back at the same moment.
 *
 * <p>Thread rule: the loop thread.
 */
final class ReadFill implements IoCallback {
    /** Fills kept for reuse: more than the front end has in flight at once (NBD: 32 per connection). */
    static final int FREE_MAX = 1024;
    /** Smallest class of the fill buffers: one page. */
    static final int BUFFER_SMALLEST_CLASS_BYTES = 4 << 10;
    /** Largest pooled fill buffer: a read piece longer than this is copied into a heap buffer as before. */
    static final int BUFFER_LARGEST_CLASS_BYTES = 1 << 20;
    /** Direct bytes the fills of one volume hold at most: 32 connections × 32 reads of 4 KiB, or four of 1 MiB. */
    static final long BUFFER_IN_USE_BYTES_MAX = 4L << 20;
    /** Free fill buffer bytes kept per volume. */
    static final long BUFFER_RETAINED_BYTES_MAX = 1L << 20;

    private final VolumeContext context;
    private InFlightWrites.Entry entry;
    private ByteBuffer copy;

    private ReadFill(VolumeContext context) {
        this.context = context;
    }

    /** A pool of fill buffers with this class's bounds, one per volume. */
    static DirectBufferPool newBufferPool() {
        return new DirectBufferPool(BUFFER_SMALLEST_CLASS_BYTES, BUFFER_LARGEST_CLASS_BYTES, BUFFER_IN_USE_BYTES_MAX,
                BUFFER_RETAINED_BYTES_MAX);
    }

    /**
     * Fills the bytes {@code [from, from + lengthBytes)} of {@code readData} (read from the backing device at
     * {@code pieceStart}) into the cache, unless the read failed or a write raced it; ends {@code entry} either way.
     * Reads the bytes at once: the caller may reuse its buffer when this returns.
     */
    static void start(VolumeContext context, InFlightWrites.Entry entry, long pieceStart, ByteBuffer readData,
                      int from, int lengthBytes, boolean readOk) {
        if (!readOk || entry.fillRaced()) {
            if (entry.fillRaced()) {
                context.stats.fillsRaced.incrementAndGet();
            }
            context.inFlight.end(entry);
            return;
        }
        ByteBuffer copy = context.fillBuffers.take(lengthBytes);
        copy.put(0, readData, from, lengthBytes);
        CachedWrite write = CachedWrite.take(context, pieceStart, copy, false);
        if (!write.reserve()) {
            context.stats.fillsNoRoomSectors.addAndGet(lengthBytes / BlockDevice.SECTOR_BYTES);
            context.fillBuffers.give(copy);
            context.inFlight.end(entry);
            return;
        }
        ReadFill fill = context.fills.pollFirst();
        if (fill == null) {
            fill = new ReadFill(context);
        }
        fill.entry = entry;
        fill.copy = copy;
        write.write(entry, fill);
    }

    /** The cache write of the copy is done: counts it, ends the entry, gives the copy and this object back. */
    @Override
    public void complete(IoResult result) {
        InFlightWrites.Entry ended = entry;
        ByteBuffer written = copy;
        entry = null;
        copy = null;
        if (result.ok()) {
            context.stats.fillSectors.addAndGet(written.remaining() / BlockDevice.SECTOR_BYTES);
            if (ended.fillRaced()) {
                context.stats.fillsRaced.incrementAndGet();
            }
        }
        context.inFlight.end(ended);
        context.fillBuffers.give(written);
        ArrayDeque<ReadFill> free = context.fills;
        if (free.size() < FREE_MAX) {
            free.addFirst(this);
        }
    }
}

package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A {@link BlockDevice} held in memory: sparse, so a device of several GiB costs memory only for the
 * pages written. Unwritten bytes read as zeroes.
 *
 * <p>Semantics: a request takes effect when it is submitted (a write is durable at once, there is no
 * volatile cache, so flush and FUA cost nothing); its completion is delivered later through
 * {@link EventLoop#execute}, never inside the submitting call. Discard zeroes the range and frees every
 * page it covers entirely.
 *
 * <p>Thread rule: submit and close on the owning loop's thread (checked); works with a simulated or a
 * real loop. {@link #counters()} and {@link #allocatedPages()} may be read from any thread.
 */
public final class MemoryDevice implements BlockDevice {
    /** Page size: 64 KiB, large enough that the page table stays small, small enough that sparse stays sparse. */
    static final int PAGE_BYTES = 64 * 1024;
    /** Pages per directory chunk: the two-level table keeps a 4 TiB device's directory at 64 Ki references. */
    private static final int PAGES_PER_CHUNK = 1024;
    private static final byte[] ZEROES = new byte[PAGE_BYTES];
    private static final String NAME = "memory";

    private final EventLoop loop;
    private final long sizeBytes;
    private final int logicalBlockBytes;
    private final DeviceCounters counters = new DeviceCounters();
    /** directory[chunk][page in chunk] -> page bytes, or null while the page has never been written. */
    private final byte[][][] directory;
    private volatile long allocatedPages;
    private boolean closed;

    /**
     * Creates an all-zero device. Allocates only the page directory (8 bytes per 64 MiB of device).
     *
     * @param sizeBytes device size in bytes, a positive multiple of {@code logicalBlockBytes}
     * @param logicalBlockBytes 512 or 4096
     */
    public MemoryDevice(EventLoop loop, long sizeBytes, int logicalBlockBytes) {
        this.loop = Objects.requireNonNull(loop, "loop");
        RequestChecks.checkGeometry(sizeBytes, logicalBlockBytes);
        this.sizeBytes = sizeBytes;
        this.logicalBlockBytes = logicalBlockBytes;
        long pages = ceilDiv(sizeBytes, PAGE_BYTES);
        long chunks = ceilDiv(pages, PAGES_PER_CHUNK);
        if (chunks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sizeBytes too large for a memory device: " + sizeBytes);
        }
        this.directory = new byte[(int) chunks][][];
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public int logicalBlockBytes() {
        return logicalBlockBytes;
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    /** Pages currently allocated (each {@value #PAGE_BYTES} bytes); any thread. */
    public long allocatedPages() {
        return allocatedPages;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        int lengthBytes = dst.remaining();
        IoResult rejected = admit(DeviceOp.READ, offsetBytes, lengthBytes, callback);
        if (rejected == null) {
            copyOut(offsetBytes, dst);
        }
        completeLater(DeviceOp.READ, rejected == null ? lengthBytes : 0, rejected, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        int lengthBytes = src.remaining();
        IoResult rejected = admit(DeviceOp.WRITE, offsetBytes, lengthBytes, callback);
        if (rejected == null) {
            copyIn(offsetBytes, src);
        }
        completeLater(DeviceOp.WRITE, rejected == null ? lengthBytes : 0, rejected, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        IoResult rejected = admit(DeviceOp.FLUSH, 0, 0, callback);
        completeLater(DeviceOp.FLUSH, 0, rejected, callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        IoResult rejected = admit(DeviceOp.DISCARD, offsetBytes, lengthBytes, callback);
        if (rejected == null) {
            zero(offsetBytes, lengthBytes);
        }
        completeLater(DeviceOp.DISCARD, rejected == null ? lengthBytes : 0, rejected, callback);
    }

    /** Frees every page; later submissions complete with {@link IoStatus#CLOSED}. Idempotent. */
    @Override
    public void close() {
        checkThread();
        closed = true;
        Arrays.fill(directory, null);
        allocatedPages = 0;
    }

    /** Checks thread, state and range; returns null if the request may proceed, else its error. */
    private IoResult admit(DeviceOp op, long offsetBytes, long lengthBytes, IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        checkThread();
        if (closed) {
            return IoResult.error(IoStatus.CLOSED, RequestChecks.describe(op, offsetBytes, lengthBytes, NAME)
                    + ": device is closed");
        }
        return RequestChecks.check(op, offsetBytes, lengthBytes, sizeBytes, logicalBlockBytes, NAME);
    }

    /** Counts the request now and delivers its outcome on the loop, after the submitting call returns. */
    private void completeLater(DeviceOp op, long bytes, IoResult rejected, IoCallback callback) {
        IoResult result = rejected == null ? IoResult.OK : rejected;
        long submittedNs = loop.nowNs();
        counters.onSubmit(op, bytes, submittedNs);
        loop.execute(() -> {
            long nowNs = loop.nowNs();
            counters.onComplete(op, bytes, nowNs - submittedNs, result, nowNs);
            callback.complete(result);
        });
    }

    private void copyOut(long offsetBytes, ByteBuffer dst) {
        long position = offsetBytes;
        while (dst.hasRemaining()) {
            int inPage = (int) (position % PAGE_BYTES);
            int chunkBytes = Math.min(PAGE_BYTES - inPage, dst.remaining());
            byte[] page = page(position / PAGE_BYTES, false);
            dst.put(page == null ? ZEROES : page, page == null ? 0 : inPage, chunkBytes);
            position += chunkBytes;
        }
    }

    private void copyIn(long offsetBytes, ByteBuffer src) {
        long position = offsetBytes;
        while (src.hasRemaining()) {
            int inPage = (int) (position % PAGE_BYTES);
            int chunkBytes = Math.min(PAGE_BYTES - inPage, src.remaining());
            src.get(page(position / PAGE_BYTES, true), inPage, chunkBytes);
            position += chunkBytes;
        }
    }

    private void zero(long offsetBytes, long lengthBytes) {
        long position = offsetBytes;
        long end = offsetBytes + lengthBytes;
        while (position < end) {
            long pageIndex = position / PAGE_BYTES;
            int inPage = (int) (position % PAGE_BYTES);
            int chunkBytes = (int) Math.min(PAGE_BYTES - inPage, end - position);
            byte[] page = page(pageIndex, false);
            if (page != null && chunkBytes == PAGE_BYTES) {
                free(pageIndex);
            } else if (page != null) {
                Arrays.fill(page, inPage, inPage + chunkBytes, (byte) 0);
            }
            position += chunkBytes;
        }
    }

    /** Returns the page, allocating it (all zero) if {@code create} and it does not exist yet. */
    private byte[] page(long pageIndex, boolean create) {
        int chunkIndex = (int) (pageIndex / PAGES_PER_CHUNK);
        int inChunk = (int) (pageIndex % PAGES_PER_CHUNK);
        byte[][] chunk = directory[chunkIndex];
        if (chunk == null) {
            if (!create) {
                return null;
            }
            chunk = new byte[PAGES_PER_CHUNK][];
            directory[chunkIndex] = chunk;
        }
        byte[] page = chunk[inChunk];
        if (page == null && create) {
            page = new byte[PAGE_BYTES];
            chunk[inChunk] = page;
            allocatedPages++;
        }
        return page;
    }

    private void free(long pageIndex) {
        byte[][] chunk = directory[(int) (pageIndex / PAGES_PER_CHUNK)];
        chunk[(int) (pageIndex % PAGES_PER_CHUNK)] = null;
        allocatedPages--;
    }

    private void checkThread() {
        if (!loop.inLoop()) {
            throw new IllegalStateException("MemoryDevice used from thread " + Thread.currentThread().getName()
                    + ", not its owning loop's thread");
        }
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}

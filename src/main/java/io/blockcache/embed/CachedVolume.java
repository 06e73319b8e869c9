package io.blockcache.embed;

import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One cached volume of a {@link BlockCache}: its backing file as seen through the cache. Every request is
 * asynchronous and returns a future that completes (on the cache's completion executor) when the request has
 * completed, or fails with a {@link BlockCacheException} saying why.
 *
 * <p>Offsets and lengths are in bytes and must be multiples of {@link #SECTOR_BYTES}; the range must lie within
 * {@link #sizeBytes()} (a request that breaks either fails with that message). A buffer handed to {@link #read}
 * or {@link #write} belongs to the request until its future completes: do not touch it meanwhile. Its position
 * and limit are not changed; the request covers its remaining bytes.
 *
 * <p>Durability: a completed write is visible to every later read, and durable once a later {@link #flush}
 * has completed (or at once if written with {@code fua}). A failed flush means the data written before it may
 * not be durable; it is never reported durable later.
 *
 * <p>Thread rule: any thread. Requests in flight on one volume are not ordered with one another; wait for a
 * future before issuing a request that must come after it.
 */
public final class CachedVolume {
    /** The unit of every offset and length: 512-byte sectors. */
    public static final int SECTOR_BYTES = 512;

    private final String name;
    private final Volume volume;
    private final long sizeBytes;
    private final Requests requests;

    CachedVolume(String name, Volume volume, long sizeBytes, Requests requests) {
        this.name = name;
        this.volume = volume;
        this.sizeBytes = sizeBytes;
        this.requests = requests;
    }

    /** The volume's name (its export name under {@code serve}). */
    public String name() {
        return name;
    }

    /** The volume's size in bytes: the backing file's size less its 1 MiB header, in whole 4 KiB. */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** Reads {@code dst.remaining()} bytes at {@code offsetBytes} into {@code dst}. */
    public CompletableFuture<Void> read(long offsetBytes, ByteBuffer dst) {
        ByteBuffer target = dst.duplicate();
        return requests.submit(describe("read", offsetBytes, target.remaining()),
                done -> volume.read(offsetBytes, target, done));
    }

    /** Reads {@code lengthBytes} at {@code offsetBytes} into a new array. */
    public CompletableFuture<byte[]> read(long offsetBytes, int lengthBytes) {
        if (lengthBytes < 0) {
            throw new IllegalArgumentException("read of " + name + ": negative length " + lengthBytes);
        }
        byte[] bytes = new byte[lengthBytes];
        return read(offsetBytes, ByteBuffer.wrap(bytes)).thenApply(ignored -> bytes);
    }

    /** Writes {@code src.remaining()} bytes at {@code offsetBytes}; durable after a later {@link #flush}. */
    public CompletableFuture<Void> write(long offsetBytes, ByteBuffer src) {
        return write(offsetBytes, src, false);
    }

    /** Writes {@code src.remaining()} bytes at {@code offsetBytes}; with {@code fua}, durable when it completes. */
    public CompletableFuture<Void> write(long offsetBytes, ByteBuffer src, boolean fua) {
        ByteBuffer source = src.duplicate();
        return requests.submit(describe(fua ? "FUA write" : "write", offsetBytes, source.remaining()),
                done -> volume.write(offsetBytes, source, fua, done));
    }

    /** Makes every write completed before this call durable (the cache's journal, and the backing file). */
    public CompletableFuture<Void> flush() {
        return requests.submit("flush of " + name, volume::flush);
    }

    /**
     * Discards {@code [offsetBytes, + lengthBytes)}: cached copies are dropped and the range may read back as
     * anything written to it before or as zeroes (as NBD's TRIM).
     */
    public CompletableFuture<Void> trim(long offsetBytes, long lengthBytes) {
        return requests.submit(describe("trim", offsetBytes, lengthBytes),
                done -> volume.discard(offsetBytes, lengthBytes, done));
    }

    private String describe(String op, long offsetBytes, long lengthBytes) {
        return op + " of " + name + " [" + offsetBytes + ", +" + lengthBytes + ")";
    }
}

package io.blockcache.volume;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.CacheLayout;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.ExtentLocation;
import java.nio.ByteBuffer;

/**
 * Reads one cached piece from the cache device and verifies it: the bucket is pinned for the duration of the
 * read (so it cannot be reused under it), the whole range the piece's CRC32C covers is read (a piece cut from
 * a larger extent can only be verified that way), and only verified bytes reach the caller's buffer.
 *
 * <p>Shared by front-end reads and writeback, so that both check data the same way.
 *
 * <p>Thread rule: the loop thread; the callback runs there.
 */
public final class CacheExtentReader {
    private final BlockDevice cacheDevice;
    private final CacheLayout layout;
    private final BucketAllocator allocator;

    /** What a verified read found. */
    public enum Outcome {
        /** The data is in the target buffer and matched its CRC32C. */
        OK,
        /** The cache device failed the read; the target holds nothing useful. */
        READ_ERROR,
        /** The data read does not match its CRC32C; the target holds nothing useful. */
        CHECKSUM_MISMATCH
    }

    /** Receives the outcome of {@link #read}. */
    @FunctionalInterface
    public interface Callback {
        /** Called once on the loop thread; {@code deviceResult} carries the device's message on READ_ERROR. */
        void done(Outcome outcome, IoResult deviceResult);
    }

    public CacheExtentReader(BlockDevice cacheDevice, CacheLayout layout, BucketAllocator allocator) {
        this.cacheDevice = cacheDevice;
        this.layout = layout;
        this.allocator = allocator;
    }

    /**
     * Reads the piece of {@code lengthSectors} sectors at {@code location} into {@code target} (exactly that
     * many bytes from its position), verifying the CRC span the index gave with the piece.
     */
    public void read(int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                     int crcLengthSectors, ByteBuffer target, Callback callback) {
        int bucket = ExtentLocation.bucket(location);
        int offset = ExtentLocation.offsetInBucketSectors(location);
        boolean exact = crcOffsetInBucketSectors == offset && crcLengthSectors == lengthSectors;
        ByteBuffer span = exact ? target : ByteBuffer.allocate(crcLengthSectors * BlockDevice.SECTOR_BYTES);
        allocator.pin(bucket);
        cacheDevice.read(layout.byteOffset(bucket, crcOffsetInBucketSectors), span, result -> {
            allocator.unpin(bucket);
            if (!result.ok()) {
                callback.done(Outcome.READ_ERROR, result);
                return;
            }
            // Device buffers' positions are unspecified after completion: always work from [0, capacity).
            if (Crc.of(span.duplicate().clear()) != crc32c) {
                callback.done(Outcome.CHECKSUM_MISMATCH,
                        IoResult.error(IoStatus.IO_ERROR, "CRC32C mismatch in bucket " + bucket));
                return;
            }
            if (!exact) {
                int from = (offset - crcOffsetInBucketSectors) * BlockDevice.SECTOR_BYTES;
                target.duplicate().clear().put(span.duplicate().clear().position(from)
                        .limit(from + lengthSectors * BlockDevice.SECTOR_BYTES));
            }
            callback.done(Outcome.OK, IoResult.OK);
        });
    }
}

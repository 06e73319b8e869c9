package io.blockcache.volume;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.VerifiedBlocks;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.ExtentLocation;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Reads one cached piece from the cache device and verifies it: the bucket is pinned for the duration of the
 * read (so it cannot be reused under it), the whole range the piece's CRC32C covers is read (a piece cut from
 * a larger extent can only be verified that way), and only verified bytes reach the caller's buffer. Every
 * successful verification marks the span's blocks in {@link VerifiedBlocks}.
 *
 * <p>Two entry points: {@link #read} (writeback: always verifies the whole span, so nothing unverified is ever
 * written back) and {@link #readHit} (front-end reads: a piece of a larger span whose blocks are all marked
 * verified is read alone, without its CRC; docs/FORMAT.md §7 rule 12 says what that gives up).
 *
 * <p>Thread rule: the loop thread; the callback runs there.
 */
public final class CacheExtentReader {
    /** Spans up to this size are read into pooled direct buffers: the largest extent a write makes (128 KiB). */
    static final int POOLED_SPAN_BYTES = 128 << 10;
    /** Free pooled span buffers kept: 32 x 128 KiB = 4 MiB; more in flight at once are allocated and dropped. */
    static final int POOLED_SPANS_MAX = 32;
    /** Direct buffers aligned to 4 KiB, as O_DIRECT file I/O needs. */
    private static final int ALIGNMENT_BYTES = 4096;

    private final BlockDevice cacheDevice;
    private final BlockDevice writebackDevice;
    private final CacheLayout layout;
    private final BucketAllocator allocator;
    private final VerifiedBlocks verified;
    private final ArrayDeque<ByteBuffer> freeSpans = new ArrayDeque<>(POOLED_SPANS_MAX);
    private long trustedReads;

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

    /**
     * A reader whose writeback reads ({@link #read}) go to {@code writebackDevice} and front-end reads
     * ({@link #readHit}) to {@code cacheDevice}: the same device seen through different wrappers (the volume's
     * congestion probe sees only the front end's, see {@code VolumeContext}).
     */
    public CacheExtentReader(BlockDevice cacheDevice, BlockDevice writebackDevice, CacheLayout layout,
                             BucketAllocator allocator) {
        this.cacheDevice = cacheDevice;
        this.writebackDevice = writebackDevice;
        this.layout = layout;
        this.allocator = allocator;
        this.verified = allocator.verifiedBlocks();
    }

    /**
     * Reads the piece of {@code lengthSectors} sectors at {@code location} into {@code target} (exactly that
     * many bytes from its position), verifying the CRC span the index gave with the piece. Always verifies.
     */
    public void read(int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                     int crcLengthSectors, ByteBuffer target, Callback callback) {
        readSpan(writebackDevice, lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors, target,
                callback);
    }

    /**
     * As {@link #read}, for a front-end read: if the piece is part of a larger span and every block it touches was
     * verified since its bucket was written, reads just the piece and does not check the CRC again.
     */
    public void readHit(int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                        int crcLengthSectors, ByteBuffer target, Callback callback) {
        int bucket = ExtentLocation.bucket(location);
        int offset = ExtentLocation.offsetInBucketSectors(location);
        boolean exact = crcOffsetInBucketSectors == offset && crcLengthSectors == lengthSectors;
        // The piece alone must be a legal device request: on a 4 KiB-sector cache device a 512-byte piece is not.
        int blockSectors = cacheDevice.logicalBlockBytes() / BlockDevice.SECTOR_BYTES;
        boolean aligned = offset % blockSectors == 0 && lengthSectors % blockSectors == 0;
        if (exact || !aligned || !verified.isVerified(bucket, offset, lengthSectors)) {
            readSpan(cacheDevice, lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors, target,
                    callback);
            return;
        }
        trustedReads++;
        allocator.pin(bucket);
        cacheDevice.read(layout.byteOffset(bucket, offset), target, result -> {
            allocator.unpin(bucket);
            callback.done(result.ok() ? Outcome.OK : Outcome.READ_ERROR, result);
        });
    }

    /** Front-end reads served without a CRC check because their blocks were verified before (a statistic). */
    public long trustedReads() {
        return trustedReads;
    }

    private void readSpan(BlockDevice device, int lengthSectors, long location, int crc32c,
                          int crcOffsetInBucketSectors, int crcLengthSectors, ByteBuffer target, Callback callback) {
        int bucket = ExtentLocation.bucket(location);
        int offset = ExtentLocation.offsetInBucketSectors(location);
        boolean exact = crcOffsetInBucketSectors == offset && crcLengthSectors == lengthSectors;
        int spanBytes = crcLengthSectors * BlockDevice.SECTOR_BYTES;
        ByteBuffer span = exact ? target : takeSpan(spanBytes);
        allocator.pin(bucket);
        device.read(layout.byteOffset(bucket, crcOffsetInBucketSectors), span, result -> {
            Outcome outcome = verify(result, span, spanBytes, crc32c);
            if (outcome == Outcome.OK) {
                // Marked while the bucket is still pinned: it cannot have been bumped since the read.
                verified.markVerified(bucket, crcOffsetInBucketSectors, crcLengthSectors);
                if (!exact) {
                    int from = (offset - crcOffsetInBucketSectors) * BlockDevice.SECTOR_BYTES;
                    target.duplicate().clear().put(span.duplicate().clear().position(from)
                            .limit(from + lengthSectors * BlockDevice.SECTOR_BYTES));
                }
            }
            if (!exact) {
                giveBack(span);
            }
            allocator.unpin(bucket);
            callback.done(outcome, outcome == Outcome.CHECKSUM_MISMATCH
                    ? IoResult.error(IoStatus.IO_ERROR, "CRC32C mismatch in bucket " + bucket) : result);
        });
    }

    private static Outcome verify(IoResult result, ByteBuffer span, int spanBytes, int crc32c) {
        if (!result.ok()) {
            return Outcome.READ_ERROR;
        }
        // Device buffers' positions are unspecified after completion: always work from [0, spanBytes) (a pooled
        // buffer is larger than the span).
        return Crc.of(span.duplicate().clear().limit(spanBytes)) == crc32c ? Outcome.OK : Outcome.CHECKSUM_MISMATCH;
    }

    /** A buffer of exactly {@code bytes}: pooled and direct up to {@link #POOLED_SPAN_BYTES}, else a heap one. */
    private ByteBuffer takeSpan(int bytes) {
        if (bytes > POOLED_SPAN_BYTES) {
            return ByteBuffer.allocate(bytes);
        }
        ByteBuffer pooled = freeSpans.pollFirst();
        if (pooled == null) {
            pooled = ByteBuffer.allocateDirect(POOLED_SPAN_BYTES + ALIGNMENT_BYTES).alignedSlice(ALIGNMENT_BYTES)
                    .limit(POOLED_SPAN_BYTES).slice();
        }
        return pooled.clear().limit(bytes);
    }

    private void giveBack(ByteBuffer span) {
        if (span.isDirect() && span.capacity() == POOLED_SPAN_BYTES && freeSpans.size() < POOLED_SPANS_MAX) {
            freeSpans.addFirst(span);
        }
    }
}

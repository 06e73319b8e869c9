package io.blockcache.volume;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.VerifiedBlocks;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
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
    /** Records of reads in flight kept for reuse: more than the front end and writeback have in flight at once. */
    private static final int FREE_READS_MAX = 1024;
    /** Direct buffers aligned to 4 KiB, as O_DIRECT file I/O needs. */
    private static final int ALIGNMENT_BYTES = 4096;

    private final BlockDevice cacheDevice;
    private final BlockDevice writebackDevice;
    private final CacheLayout layout;
    private final BucketAllocator allocator;
    private final VerifiedBlocks verified;
    private final ArrayDeque<ByteBuffer> freeSpans = new ArrayDeque<>(POOLED_SPANS_MAX);
    private final ArrayDeque<PendingRead> freeReads = new ArrayDeque<>();
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
        cacheDevice.read(layout.byteOffset(bucket, offset), target, pending(bucket, callback));
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
        PendingRead read = pending(bucket, callback);
        read.verify = true;
        read.span = span;
        read.spanFrom = span.position();
        read.spanBytes = spanBytes;
        read.crc32c = crc32c;
        read.crcOffsetInBucketSectors = crcOffsetInBucketSectors;
        read.crcLengthSectors = crcLengthSectors;
        read.exact = exact;
        read.target = target;
        read.targetFrom = target.position();
        read.pieceFromBytes = (offset - crcOffsetInBucketSectors) * BlockDevice.SECTOR_BYTES;
        read.pieceBytes = lengthSectors * BlockDevice.SECTOR_BYTES;
        allocator.pin(bucket);
        device.read(layout.byteOffset(bucket, crcOffsetInBucketSectors), span, read);
    }

    private PendingRead pending(int bucket, Callback callback) {
        PendingRead read = freeReads.pollFirst();
        if (read == null) {
            read = new PendingRead();
        }
        read.bucket = bucket;
        read.callback = callback;
        read.verify = false;
        return read;
    }

    /**
     * One cache read in flight: the pinned bucket, and for a verified read the span to check and where the piece
     * goes. Reused once the read completed (issue 10: nothing allocated per request on the loop thread).
     */
    private final class PendingRead implements IoCallback {
        private int bucket;
        private Callback callback;
        private boolean verify;
        private ByteBuffer span;
        private int spanFrom;
        private int spanBytes;
        private int crc32c;
        private int crcOffsetInBucketSectors;
        private int crcLengthSectors;
        private boolean exact;
        private ByteBuffer target;
        private int targetFrom;
        private int pieceFromBytes;
        private int pieceBytes;

        @Override
        public void complete(IoResult result) {
            Callback caller = callback;
            if (caller == null) {
                throw new IllegalStateException("cache read of bucket " + bucket + " completed twice");
            }
            callback = null;
            int pinned = bucket;
            Outcome outcome = result.ok() ? Outcome.OK : Outcome.READ_ERROR;
            if (verify) {
                outcome = finishVerified(result);
            }
            span = null;
            target = null;
            if (freeReads.size() < FREE_READS_MAX) {
                freeReads.addFirst(this); // before the caller runs: what it submits next can take it
            }
            allocator.unpin(pinned);
            caller.done(outcome, outcome == Outcome.CHECKSUM_MISMATCH
                    ? IoResult.error(IoStatus.IO_ERROR, "CRC32C mismatch in bucket " + pinned) : result);
        }

        private Outcome finishVerified(IoResult result) {
            // Device buffers' positions are unspecified after completion: work from where the read started.
            span.limit(spanFrom + spanBytes).position(spanFrom);
            Outcome outcome = verify(result, span, crc32c);
            if (outcome == Outcome.OK) {
                // Marked while the bucket is still pinned: it cannot have been bumped since the read.
                verified.markVerified(bucket, crcOffsetInBucketSectors, crcLengthSectors);
                if (!exact) {
                    target.put(targetFrom, span, spanFrom + pieceFromBytes, pieceBytes);
                }
            }
            if (!exact) {
                giveBack(span);
            }
            return outcome;
        }
    }

    private static Outcome verify(IoResult result, ByteBuffer span, int crc32c) {
        if (!result.ok()) {
            return Outcome.READ_ERROR;
        }
        return Crc.of(span) == crc32c ? Outcome.OK : Outcome.CHECKSUM_MISMATCH;
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

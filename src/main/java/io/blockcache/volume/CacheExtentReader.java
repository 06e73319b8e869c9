package io.blockcache.volume;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.BlockChecksums;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.ExtentLocation;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * Reads one cached piece from the cache device and verifies it: the bucket is pinned for the duration of the
 * read (so it cannot be reused under it), and only verified bytes reach the caller's buffer. What is verified is
 * either the whole range the piece's span CRC32C covers (a piece cut from a larger extent can only be checked that
 * way), or, for a front-end read, just the 4 KiB blocks the piece touches, each against its own CRC in
 * {@link BlockChecksums} (docs/FORMAT.md §9). A verified span teaches the table its whole blocks' CRCs, so data
 * written before an open is read whole once and then block by block.
 *
 * <p>Two entry points: {@link #read} (writeback: always verifies the whole span before anything is written back)
 * and {@link #readHit} (front-end reads: the blocks the piece touches when every one of them has a CRC and they
 * are fewer than the span's, else the span).
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
    private final BlockChecksums checksums;
    private final ArrayDeque<ByteBuffer> freeSpans = new ArrayDeque<>(POOLED_SPANS_MAX);
    private final ArrayDeque<PendingRead> freeReads = new ArrayDeque<>();
    private long blockReads;

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
        this.checksums = allocator.blockChecksums();
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
     * As {@link #read}, for a front-end read: if the piece is part of a larger span and every 4 KiB block it touches
     * has its own CRC, reads just those blocks and verifies each (straight into {@code target} when the piece is
     * whole blocks); otherwise reads and verifies the span.
     */
    public void readHit(int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                        int crcLengthSectors, ByteBuffer target, Callback callback) {
        int bucket = ExtentLocation.bucket(location);
        int offset = ExtentLocation.offsetInBucketSectors(location);
        boolean exact = crcOffsetInBucketSectors == offset && crcLengthSectors == lengthSectors;
        int firstBlock = offset / BlockChecksums.BLOCK_SECTORS;
        int endBlock = Math.ceilDiv(offset + lengthSectors, BlockChecksums.BLOCK_SECTORS);
        int blocksSectors = (endBlock - firstBlock) * BlockChecksums.BLOCK_SECTORS;
        if (exact || blocksSectors >= crcLengthSectors || !checksums.covers(bucket, offset, lengthSectors)) {
            readSpan(cacheDevice, lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors, target,
                    callback);
            return;
        }
        blockReads++;
        int firstSector = firstBlock * BlockChecksums.BLOCK_SECTORS;
        PendingRead read = verifiedRead(bucket, firstSector, blocksSectors, offset, lengthSectors, target, callback);
        read.byBlocks = true;
        read.firstBlock = firstBlock;
        cacheDevice.read(layout.byteOffset(bucket, firstSector), read.span, read);
    }

    /** Front-end reads verified by the CRCs of their 4 KiB blocks instead of their extent's span (a statistic). */
    public long blockReads() {
        return blockReads;
    }

    private void readSpan(BlockDevice device, int lengthSectors, long location, int crc32c,
                          int crcOffsetInBucketSectors, int crcLengthSectors, ByteBuffer target, Callback callback) {
        int bucket = ExtentLocation.bucket(location);
        PendingRead read = verifiedRead(bucket, crcOffsetInBucketSectors, crcLengthSectors,
                ExtentLocation.offsetInBucketSectors(location), lengthSectors, target, callback);
        read.crc32c = crc32c;
        read.crcOffsetInBucketSectors = crcOffsetInBucketSectors;
        read.crcLengthSectors = crcLengthSectors;
        device.read(layout.byteOffset(bucket, crcOffsetInBucketSectors), read.span, read);
    }

    /**
     * A verified read of sectors {@code [fromSector, + lengthSectors)} of {@code bucket}, which holds the piece at
     * {@code [pieceSector, + pieceSectors)}: into {@code target} itself when the two are the same, else into a
     * pooled buffer. Pins the bucket; the caller says what to verify against and submits the read.
     */
    private PendingRead verifiedRead(int bucket, int fromSector, int lengthSectors, int pieceSector, int pieceSectors,
                                     ByteBuffer target, Callback callback) {
        boolean exact = fromSector == pieceSector && lengthSectors == pieceSectors;
        int bytes = lengthSectors * BlockDevice.SECTOR_BYTES;
        ByteBuffer span = exact ? target : takeSpan(bytes);
        PendingRead read = pending(bucket, callback);
        read.verify = true;
        read.span = span;
        read.spanFrom = span.position();
        read.spanBytes = bytes;
        read.exact = exact;
        read.target = target;
        read.targetFrom = target.position();
        read.pieceFromBytes = (pieceSector - fromSector) * BlockDevice.SECTOR_BYTES;
        read.pieceBytes = pieceSectors * BlockDevice.SECTOR_BYTES;
        allocator.pin(bucket);
        return read;
    }

    private PendingRead pending(int bucket, Callback callback) {
        PendingRead read = freeReads.pollFirst();
        if (read == null) {
            read = new PendingRead();
        }
        read.bucket = bucket;
        read.callback = callback;
        read.verify = false;
        read.byBlocks = false;
        return read;
    }

    /**
     * One cache read in flight: the pinned bucket, and for a verified read the span to check and where the piece
     * goes. Reused once the read completed (nothing allocated per request on the loop thread).
     */
    private final class PendingRead implements IoCallback {
        private int bucket;
        private Callback callback;
        private boolean verify;
        /** Verified block by block ({@link #readHit}); {@code span} then holds the blocks from {@code firstBlock}. */
        private boolean byBlocks;
        private int firstBlock;
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
            Outcome outcome = byBlocks ? verifyBlocks(result) : verify(result, span, crc32c);
            if (outcome == Outcome.OK) {
                if (!byBlocks && crcLengthSectors > BlockChecksums.BLOCK_SECTORS) {
                    // Learned while the bucket is still pinned: it cannot have been bumped since the read.
                    checksums.learn(bucket, crcOffsetInBucketSectors, span);
                }
                if (!exact) {
                    target.put(targetFrom, span, spanFrom + pieceFromBytes, pieceBytes);
                }
            }
            if (!exact) {
                giveBack(span);
            }
            return outcome;
        }

        private Outcome verifyBlocks(IoResult result) {
            if (!result.ok()) {
                return Outcome.READ_ERROR;
            }
            for (int k = 0; k * BlockChecksums.BLOCK_BYTES < spanBytes; k++) {
                int crc = Crc.of(span, spanFrom + k * BlockChecksums.BLOCK_BYTES, BlockChecksums.BLOCK_BYTES);
                if (crc != checksums.crc(bucket, firstBlock + k)) {
                    return Outcome.CHECKSUM_MISMATCH;
                }
            }
            return Outcome.OK;
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

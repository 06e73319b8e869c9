package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.PartCount;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One front-end read: looks the range up, reads cached pieces from the cache device (verifying their
 * CRC32C) and holes from the backing device, and fills holes into the cache when the mode allows.
 *
 * <p>A cached piece whose checksum fails is never returned: dirty data fails the read (the only copy is
 * bad), clean data is read from the backing device instead. Every bucket read from is pinned until its read
 * completes, so it cannot be reused under the read.
 *
 * <p>Reused (nothing allocated per steady-state request on the loop thread): {@link #take} hands out a
 * request from the volume's free list, and the request goes back there when it completes, just before its caller is
 * called. What a 4 KiB read needs is held in fields: the request is its own join of parts, its own callback for
 * its first cached piece, has one made with it for its first hole, and reads a piece straight into the caller's
 * buffer when the piece is the whole request (a view is made only for a request of several pieces); a hole's fill
 * is a reused {@link ReadFill}. The caller's buffer is left with the position and limit it came with.
 *
 * <p>Thread rule: the loop thread.
 */
final class ReadRequest implements LookupVisitor, Runnable, IoCallback, CacheExtentReader.Callback {
    /** Requests kept for reuse: more than the front end has in flight at once (NBD: 32 per connection). */
    static final int FREE_MAX = 1024;

    private final VolumeContext context;
    private final ArrayDeque<ReadRequest> free;
    private long startSector;
    private int lengthSectors;
    private ByteBuffer destination;
    private int destinationFrom;
    private int destinationTo;
    private boolean fillAllowed;
    private IoCallback callback;
    /** Its pieces and the seal. */
    private final PartCount parts = new PartCount();
    /** The first cached piece completes through this object; later ones through a callback of their own. */
    private boolean firstHitTaken;
    /** The first hole's backing read completes through this object; later ones through a callback of their own. */
    private boolean firstHoleTaken;
    private final FirstHole firstHole = new FirstHole();
    private long hitStart;
    private int hitLengthSectors;
    private int hitBucket;
    private boolean hitDirty;
    private InFlightWrites.Entry hitPromotion;

    private ReadRequest(VolumeContext context, ArrayDeque<ReadRequest> free) {
        this.context = context;
        this.free = free;
    }

    /**
     * A request from {@code free} (or a new one) for {@code destination}'s remaining bytes at {@code startSector};
     * {@link #run} starts it.
     *
     * @param fillAllowed false if the bypass policy said this read's misses must not be filled (a sequential
     *     stream past the cutoff, or a congested cache device)
     */
    static ReadRequest take(VolumeContext context, ArrayDeque<ReadRequest> free, long startSector,
                            ByteBuffer destination, boolean fillAllowed, IoCallback callback) {
        ReadRequest request = free.pollFirst();
        if (request == null) {
            request = new ReadRequest(context, free);
        }
        request.startSector = startSector;
        request.destination = destination;
        request.destinationFrom = destination.position();
        request.destinationTo = destination.limit();
        request.lengthSectors = destination.remaining() / BlockDevice.SECTOR_BYTES;
        request.fillAllowed = fillAllowed;
        request.callback = callback;
        request.parts.begin();
        request.firstHitTaken = false;
        request.firstHoleTaken = false;
        return request;
    }

    /** Looks up the range and submits every piece. */
    @Override
    public void run() {
        context.index.lookup(startSector, lengthSectors, this);
        complete(IoResult.OK); // the seal: an early completion of a piece cannot finish the request too soon
    }

    /** One part (a piece, or the seal) is done; the last one completes the request and frees this object. */
    @Override
    public void complete(IoResult result) {
        IoResult outcome = parts.complete(result, "read");
        if (outcome == null) {
            return;
        }
        IoCallback caller = callback;
        destination.limit(destinationTo).position(destinationFrom); // a piece read into it directly moved them
        destination = null;
        callback = null;
        if (free.size() < FREE_MAX) {
            free.addFirst(this); // before the caller runs: what it submits next can take it
        }
        caller.complete(outcome);
    }

    private void addPart() {
        parts.add();
    }

    /** The bytes of {@code [pieceStart, +lengthSectors)} in the caller's buffer: the buffer itself for all of it. */
    private ByteBuffer target(long pieceStart, int pieceSectors) {
        if (pieceStart == startSector && pieceSectors == lengthSectors) {
            return destination;
        }
        return view(pieceStart, pieceSectors);
    }

    /** A view of {@code [pieceStart, +lengthSectors)} of the caller's buffer, whatever its position is now. */
    private ByteBuffer view(long pieceStart, int pieceSectors) {
        int from = destinationFrom + (int) (pieceStart - startSector) * BlockDevice.SECTOR_BYTES;
        return destination.slice(from, pieceSectors * BlockDevice.SECTOR_BYTES);
    }

    @Override
    public void hole(long pieceStart, int lengthSectors) {
        ByteBuffer target = target(pieceStart, lengthSectors);
        context.stats.readMissSectors.addAndGet(lengthSectors);
        CacheMode mode = context.mode;
        boolean fillWanted = context.config.fillOnReadMiss() && mode != CacheMode.NONE;
        // A pinned piece is always filled (docs/CACHING.md "Pinning"): the admission rule judges popularity, a pin
        // is the operator's word.
        boolean fill = fillWanted && fillAllowed && (context.index.pins().overlaps(pieceStart, lengthSectors)
                || context.admission.admit(pieceStart, lengthSectors));
        if (fillWanted && !fillAllowed) {
            context.stats.fillsSkippedSectors.addAndGet(lengthSectors);
        }
        InFlightWrites.Entry fillEntry = fill ? context.inFlight.beginFill(pieceStart, lengthSectors) : null;
        addPart();
        if (!firstHoleTaken) {
            firstHoleTaken = true;
            firstHole.begin(pieceStart, lengthSectors, fillEntry);
            context.backingDevice.read(context.backingOffset(pieceStart), target, firstHole);
            return;
        }
        context.backingDevice.read(context.backingOffset(pieceStart), target,
                result -> holeRead(result, pieceStart, lengthSectors, fillEntry));
    }

    /** A hole's backing read is done: fills it (if it is to be) while the bytes are still the caller's. */
    private void holeRead(IoResult result, long pieceStart, int pieceSectors, InFlightWrites.Entry fillEntry) {
        if (fillEntry != null) {
            int from = destinationFrom + (int) (pieceStart - startSector) * BlockDevice.SECTOR_BYTES;
            ReadFill.start(context, fillEntry, pieceStart, destination, from, pieceSectors * BlockDevice.SECTOR_BYTES,
                    result.ok());
        }
        complete(result.ok() ? IoResult.OK
                : IoResult.error(IoStatus.IO_ERROR, "backing device read failed: " + result.message()));
    }

    /** The callback of a request's first hole, made once with the request, as the request is its first hit's. */
    private final class FirstHole implements IoCallback {
        private long pieceStart;
        private int pieceSectors;
        private InFlightWrites.Entry fillEntry;

        void begin(long start, int sectors, InFlightWrites.Entry entry) {
            pieceStart = start;
            pieceSectors = sectors;
            fillEntry = entry;
        }

        @Override
        public void complete(IoResult result) {
            InFlightWrites.Entry entry = fillEntry;
            fillEntry = null;
            holeRead(result, pieceStart, pieceSectors, entry);
        }
    }

    @Override
    public void extent(long pieceStart, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                       int crcLengthSectors) {
        int bucket = ExtentLocation.bucket(location);
        boolean dirty = ExtentLocation.dirty(location);
        ByteBuffer target = target(pieceStart, lengthSectors);
        addPart();
        // A promotion registers its fill before the cache read is submitted, as a miss's fill does before its backing
        // read: a write that lands while the read is in flight then marks it raced, and the stale copy is dropped.
        InFlightWrites.Entry promotion = !dirty && context.mode != CacheMode.NONE
                && context.admission.promote(bucket, lengthSectors)
                ? context.inFlight.beginFill(pieceStart, lengthSectors) : null;
        if (!firstHitTaken) {
            firstHitTaken = true;
            hitStart = pieceStart;
            hitLengthSectors = lengthSectors;
            hitBucket = bucket;
            hitDirty = dirty;
            hitPromotion = promotion;
            context.extentReader.readHit(lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors,
                    target, this);
            return;
        }
        context.extentReader.readHit(lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors,
                target, (outcome, deviceResult) -> pieceRead(outcome, deviceResult, pieceStart, lengthSectors,
                        bucket, dirty, promotion));
    }

    /** The first cached piece was read. */
    @Override
    public void done(CacheExtentReader.Outcome outcome, IoResult deviceResult) {
        InFlightWrites.Entry promotion = hitPromotion;
        hitPromotion = null;
        pieceRead(outcome, deviceResult, hitStart, hitLengthSectors, hitBucket, hitDirty, promotion);
    }

    private void pieceRead(CacheExtentReader.Outcome outcome, IoResult deviceResult, long pieceStart,
                           int pieceSectors, int bucket, boolean dirty, InFlightWrites.Entry promotion) {
        if (promotion != null && outcome != CacheExtentReader.Outcome.OK) {
            context.inFlight.end(promotion);
        }
        switch (outcome) {
            case OK -> {
                context.stats.readHitSectors.addAndGet(pieceSectors);
                if (promotion != null) {
                    promote(promotion, pieceStart, pieceSectors);
                } else {
                    context.space.allocator().noteReadHit(bucket); // recency for GC eviction
                }
                complete(IoResult.OK);
            }
            case READ_ERROR -> complete(IoResult.error(IoStatus.IO_ERROR,
                    "cache device read failed: " + deviceResult.message()));
            case CHECKSUM_MISMATCH -> checksumFailed(pieceStart, pieceSectors, bucket, dirty);
            default -> throw new IllegalStateException("unknown outcome " + outcome);
        }
    }

    /**
     * Rewrites a clean hit piece, still in the caller's buffer, into the newest clean bucket: a fill of data already
     * read, through an in-flight entry registered before the cache read (as a read-miss fill's is before its backing
     * read) and the same miss-collision rule, so a write that lands meanwhile wins. The old copy becomes stale and its
     * bucket emptier, so eviction takes it sooner. Not done when the bucket is young ({@link ReadAdmission#promote});
     * when done, the bucket's recency is not refreshed, since its hot blocks are leaving it.
     */
    private void promote(InFlightWrites.Entry entry, long pieceStart, int pieceSectors) {
        context.admission.noteFill(pieceStart / 8);
        int from = destinationFrom + (int) (pieceStart - startSector) * BlockDevice.SECTOR_BYTES;
        ReadFill.start(context, entry, pieceStart, destination, from, pieceSectors * BlockDevice.SECTOR_BYTES, true);
    }

    private void checksumFailed(long pieceStart, int lengthSectors, int bucket, boolean dirty) {
        context.stats.checksumErrors.incrementAndGet();
        if (dirty) {
            complete(IoResult.error(IoStatus.IO_ERROR, "cached dirty data of sectors [" + pieceStart + ", "
                    + (pieceStart + lengthSectors) + ") in bucket " + bucket
                    + " failed its CRC32C check; the only copy is damaged"));
            return;
        }
        // Clean data: the backing device has the same data, read it from there.
        context.stats.readMissSectors.addAndGet(lengthSectors);
        // The failed cache read may have moved the buffer's position: hand the device a fresh view of the piece.
        context.backingDevice.read(context.backingOffset(pieceStart), view(pieceStart, lengthSectors),
                result -> complete(result.ok()
                ? IoResult.OK
                : IoResult.error(IoStatus.IO_ERROR, "backing device read failed: " + result.message())));
    }
}

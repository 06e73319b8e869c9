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
 * <p>Reused (issue 10: nothing allocated per steady-state request on the loop thread): {@link #take} hands out a
 * request from the volume's free list, and the request goes back there when it completes, just before its caller is
 * called. What a 4 KiB read hit needs is held in fields: the request is its own join of parts, its own callback for
 * its first cached piece, and reads that piece straight into the caller's buffer when the piece is the whole
 * request (a view is made only for a request of several pieces). The caller's buffer is left with the position
 * and limit it came with.
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
    private long hitStart;
    private int hitLengthSectors;
    private int hitBucket;
    private boolean hitDirty;

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

    private IoCallback addPart() {
        parts.add();
        return this;
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
        ByteBuffer target = view(pieceStart, lengthSectors);
        context.stats.readMissSectors.addAndGet(lengthSectors);
        CacheMode mode = context.mode;
        boolean fillWanted = context.config.fillOnReadMiss() && mode != CacheMode.NONE;
        boolean fill = fillWanted && fillAllowed;
        if (fillWanted && !fillAllowed) {
            context.stats.fillsSkippedSectors.addAndGet(lengthSectors);
        }
        InFlightWrites.Entry fillEntry = fill ? context.inFlight.beginFill(pieceStart, lengthSectors) : null;
        IoCallback part = addPart();
        context.backingDevice.read(context.backingOffset(pieceStart), target, result -> {
            if (fillEntry != null) {
                fill(context, fillEntry, pieceStart, target, result.ok());
            }
            part.complete(result.ok() ? IoResult.OK
                    : IoResult.error(IoStatus.IO_ERROR, "backing device read failed: " + result.message()));
        });
    }

    @Override
    public void extent(long pieceStart, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                       int crcLengthSectors) {
        int bucket = ExtentLocation.bucket(location);
        boolean dirty = ExtentLocation.dirty(location);
        ByteBuffer target = target(pieceStart, lengthSectors);
        addPart();
        if (!firstHitTaken) {
            firstHitTaken = true;
            hitStart = pieceStart;
            hitLengthSectors = lengthSectors;
            hitBucket = bucket;
            hitDirty = dirty;
            context.extentReader.readHit(lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors,
                    target, this);
            return;
        }
        context.extentReader.readHit(lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors,
                target, (outcome, deviceResult) -> pieceRead(outcome, deviceResult, pieceStart, lengthSectors,
                        bucket, dirty));
    }

    /** The first cached piece was read. */
    @Override
    public void done(CacheExtentReader.Outcome outcome, IoResult deviceResult) {
        pieceRead(outcome, deviceResult, hitStart, hitLengthSectors, hitBucket, hitDirty);
    }

    private void pieceRead(CacheExtentReader.Outcome outcome, IoResult deviceResult, long pieceStart,
                           int pieceSectors, int bucket, boolean dirty) {
        switch (outcome) {
            case OK -> {
                context.stats.readHitSectors.addAndGet(pieceSectors);
                context.space.allocator().noteReadHit(bucket); // recency for GC eviction
                complete(IoResult.OK);
            }
            case READ_ERROR -> complete(IoResult.error(IoStatus.IO_ERROR,
                    "cache device read failed: " + deviceResult.message()));
            case CHECKSUM_MISMATCH -> checksumFailed(pieceStart, pieceSectors, bucket, dirty);
            default -> throw new IllegalStateException("unknown outcome " + outcome);
        }
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

    /** Fills a piece read from the backing device into the cache; static: it outlives the request. */
    private static void fill(VolumeContext context, InFlightWrites.Entry entry, long pieceStart, ByteBuffer readData,
                             boolean readOk) {
        if (!readOk || entry.fillRaced()) {
            if (entry.fillRaced()) {
                context.stats.fillsRaced.incrementAndGet();
            }
            context.inFlight.end(entry);
            return;
        }
        // Copy: the caller owns the read buffer and may reuse it as soon as the read completes.
        ByteBuffer copy = ByteBuffer.allocate(readData.capacity());
        copy.put(readData.duplicate().clear()).flip();
        CachedWrite write = CachedWrite.take(context, pieceStart, copy, false);
        if (!write.reserve()) {
            context.inFlight.end(entry);
            return;
        }
        write.write(entry, result -> {
            if (result.ok()) {
                context.stats.fillSectors.addAndGet(copy.remaining() / BlockDevice.SECTOR_BYTES);
                if (entry.fillRaced()) {
                    context.stats.fillsRaced.incrementAndGet();
                }
            }
            context.inFlight.end(entry);
        });
    }
}

package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import java.nio.ByteBuffer;

/**
 * One front-end read: looks the range up, reads cached pieces from the cache device (verifying their
 * CRC32C) and holes from the backing device, and fills holes into the cache when the mode allows.
 *
 * <p>A cached piece whose checksum fails is never returned: dirty data fails the read (the only copy is
 * bad), clean data is read from the backing device instead. Every bucket read from is pinned until its read
 * completes, so it cannot be reused under the read.
 *
 * <p>Thread rule: the loop thread.
 */
final class ReadRequest implements LookupVisitor {
    private final VolumeContext context;
    private final long startSector;
    private final ByteBuffer destination;
    private final IoJoin parts;
    private final boolean fillAllowed;

    /**
     * @param fillAllowed false if the bypass policy said this read's misses must not be filled (a sequential
     *     stream past the cutoff, or a congested cache device)
     */
    ReadRequest(VolumeContext context, long startSector, ByteBuffer destination, boolean fillAllowed,
                IoCallback callback) {
        this.context = context;
        this.fillAllowed = fillAllowed;
        this.startSector = startSector;
        this.destination = destination;
        this.parts = new IoJoin(callback);
    }

    /** Looks up the range and submits every piece. */
    void start() {
        int lengthSectors = destination.remaining() / BlockDevice.SECTOR_BYTES;
        context.index.lookup(startSector, lengthSectors, this);
        parts.seal();
    }

    private ByteBuffer slice(long pieceStart, int lengthSectors) {
        int from = destination.position() + (int) (pieceStart - startSector) * BlockDevice.SECTOR_BYTES;
        return destination.duplicate().position(from).limit(from + lengthSectors * BlockDevice.SECTOR_BYTES)
                .slice();
    }

    @Override
    public void hole(long pieceStart, int lengthSectors) {
        ByteBuffer target = slice(pieceStart, lengthSectors);
        context.stats.readMissSectors.addAndGet(lengthSectors);
        CacheMode mode = context.mode;
        boolean fillWanted = context.config.fillOnReadMiss() && mode != CacheMode.NONE;
        boolean fill = fillWanted && fillAllowed;
        if (fillWanted && !fillAllowed) {
            context.stats.fillsSkippedSectors.addAndGet(lengthSectors);
        }
        InFlightWrites.Entry fillEntry = fill ? context.inFlight.beginFill(pieceStart, lengthSectors) : null;
        IoCallback part = parts.add();
        context.backingDevice.read(context.backingOffset(pieceStart), target, result -> {
            if (fillEntry != null) {
                fill(fillEntry, pieceStart, target, result.ok());
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
        ByteBuffer target = slice(pieceStart, lengthSectors);
        IoCallback part = parts.add();
        context.extentReader.readHit(lengthSectors, location, crc32c, crcOffsetInBucketSectors, crcLengthSectors,
                target, (outcome, deviceResult) -> {
                    switch (outcome) {
                        case OK -> {
                            context.stats.readHitSectors.addAndGet(lengthSectors);
                            context.space.allocator().noteReadHit(bucket); // recency for GC eviction
                            part.complete(IoResult.OK);
                        }
                        case READ_ERROR -> part.complete(IoResult.error(IoStatus.IO_ERROR,
                                "cache device read failed: " + deviceResult.message()));
                        case CHECKSUM_MISMATCH -> checksumFailed(pieceStart, lengthSectors, bucket, dirty, target,
                                part);
                        default -> throw new IllegalStateException("unknown outcome " + outcome);
                    }
                });
    }

    private void checksumFailed(long pieceStart, int lengthSectors, int bucket, boolean dirty, ByteBuffer target,
                                IoCallback part) {
        context.stats.checksumErrors.incrementAndGet();
        if (dirty) {
            part.complete(IoResult.error(IoStatus.IO_ERROR, "cached dirty data of sectors [" + pieceStart + ", "
                    + (pieceStart + lengthSectors) + ") in bucket " + bucket
                    + " failed its CRC32C check; the only copy is damaged"));
            return;
        }
        // Clean data: the backing device has the same data, read it from there.
        context.stats.readMissSectors.addAndGet(lengthSectors);
        // The failed cache read may have moved the slice's position: hand the device a fresh view of it.
        context.backingDevice.read(context.backingOffset(pieceStart), target.duplicate().clear(),
                result -> part.complete(result.ok()
                ? IoResult.OK
                : IoResult.error(IoStatus.IO_ERROR, "backing device read failed: " + result.message())));
    }

    private void fill(InFlightWrites.Entry entry, long pieceStart, ByteBuffer readData, boolean readOk) {
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
        CachedWrite write = new CachedWrite(context, pieceStart, copy, false);
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

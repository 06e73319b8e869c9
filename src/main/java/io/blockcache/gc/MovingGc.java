package io.blockcache.gc;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.VolumeIndex;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Moving GC (issue 6 item 2): copies the live extents of sparsely used buckets to the GC write point so the
 * buckets empty and are released. Up to {@link #PIECES_IN_FLIGHT} pieces at a time, each in turn: check the old
 * bucket still has the generation the piece was found under and pin it; read the range its CRC covers and verify
 * it; write the piece to the GC write point; then, in one loop step, look the range up and re-point every part
 * that is <em>still</em> at the old location (the same replace-only-if-unchanged rule as writeback). A front-end
 * write or trim that raced with the copy changed the location, so its data wins. Dirty parts are journaled through
 * {@link VolumeIndex#insertPiece} (the journal commit flushes the cache device first, so the copy is durable
 * before the record); clean parts need no journal. Moving GC moves dirty data; it never drops it.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class MovingGc {
    /**
     * Pieces copied at once. Why more than one: each step of a copy waits its turn on the loop behind the front
     * end's work, so one piece at a time moved ~25 MiB/s of 4 KiB pieces under a 4 KiB random-write load — less
     * than compaction must free (docs/GC.md "Compaction"); the copies are independent (each re-points only what is
     * still at its old location), and each is a page-cache transfer on a fast cache device.
     */
    static final int PIECES_IN_FLIGHT = 8;

    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final CacheLayout layout;
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final List<VolumeIndex> volumes;
    private final WritePoint writePoint;
    private final GcStats stats;
    private List<MovePiece> pieces;
    private int next;
    private int chains;
    private Runnable done;

    MovingGc(EventLoop loop, BlockDevice cacheDevice, CacheLayout layout, BucketTable table,
             BucketAllocator allocator, List<VolumeIndex> volumes, GcStats stats) {
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.layout = layout;
        this.table = table;
        this.allocator = allocator;
        this.volumes = volumes;
        this.writePoint = new WritePoint("gc", allocator, table.bucketSectors());
        this.stats = stats;
    }

    /** The GC write point's open bucket, or -1. */
    int openBucket() {
        return writePoint.openBucket();
    }

    /**
     * Moves {@code toMove} in order, up to {@link #PIECES_IN_FLIGHT} at a time, then runs {@code whenDone}; stops
     * early if no bucket is free.
     */
    void move(List<MovePiece> toMove, Runnable whenDone) {
        this.pieces = toMove;
        this.next = 0;
        this.done = whenDone;
        this.chains = PIECES_IN_FLIGHT;
        for (int i = 0; i < PIECES_IN_FLIGHT; i++) {
            loop.execute(this::nextPiece);
        }
    }

    /** One chain's next piece; the last chain to find none left ends the move. */
    private void nextPiece() {
        if (next >= pieces.size()) {
            if (--chains == 0) {
                pieces = null;
                done.run();
            }
            return;
        }
        MovePiece piece = pieces.get(next++);
        int bucket = ExtentLocation.bucket(piece.location());
        if (table.generation(bucket) != ExtentLocation.generation(piece.location())) {
            loop.execute(this::nextPiece); // the bucket was emptied or evicted meanwhile: nothing to move
            return;
        }
        allocator.pin(bucket);
        ByteBuffer span = ByteBuffer.allocate(piece.crcLengthSectors() * BlockDevice.SECTOR_BYTES);
        cacheDevice.read(layout.byteOffset(bucket, piece.crcOffsetInBucketSectors()), span, result -> {
            allocator.unpin(bucket);
            if (!result.ok()) {
                loop.execute(this::nextPiece); // left in place; a front-end read reports the error
                return;
            }
            if (crc(span.duplicate().clear()) != piece.crc32c()) {
                stats.addMoveChecksumFailure();
                loop.execute(this::nextPiece);
                return;
            }
            int from = (ExtentLocation.offsetInBucketSectors(piece.location()) - piece.crcOffsetInBucketSectors())
                    * BlockDevice.SECTOR_BYTES;
            ByteBuffer data = span.duplicate().clear().position(from)
                    .limit(from + piece.lengthSectors() * BlockDevice.SECTOR_BYTES).slice();
            writeChunk(piece, data, 0);
        });
    }

    /** Writes the piece from {@code doneSectors} on into as much as the GC write point grants, then installs it. */
    private void writeChunk(MovePiece piece, ByteBuffer data, int doneSectors) {
        if (doneSectors == piece.lengthSectors()) {
            loop.execute(this::nextPiece);
            return;
        }
        WritePoint.Reservation reservation = new WritePoint.Reservation();
        if (!writePoint.reserve(piece.lengthSectors() - doneSectors, reservation)) {
            next = pieces.size(); // no free bucket: moving more would only compete with the front end
            loop.execute(this::nextPiece);
            return;
        }
        int length = reservation.lengthSectors();
        int newBucket = reservation.bucket();
        int newGeneration = table.generation(newBucket);
        ByteBuffer chunk = data.duplicate().position(doneSectors * BlockDevice.SECTOR_BYTES)
                .limit((doneSectors + length) * BlockDevice.SECTOR_BYTES).slice();
        int chunkCrc = crc(chunk.duplicate());
        cacheDevice.write(layout.byteOffset(newBucket, reservation.offsetSectors()), chunk, false, result -> {
            if (result.ok()) {
                install(piece, doneSectors, length, newBucket, reservation.offsetSectors(), newGeneration, chunkCrc);
                stats.addMovedBytes((long) length * BlockDevice.SECTOR_BYTES);
            }
            allocator.unpin(newBucket);
            writeChunk(piece, data, doneSectors + length);
        });
    }

    /** Re-points, in this one loop step, every part of the chunk still at its old location. */
    private void install(MovePiece piece, int chunkIntoPiece, int lengthSectors, int newBucket, int newOffset,
                         int newGeneration, int crc32c) {
        VolumeIndex index = volumes.get(piece.volume());
        long chunkStart = piece.startSector() + chunkIntoPiece;
        long oldAtChunk = ExtentLocation.withDirty(ExtentLocation.shifted(piece.location(), chunkIntoPiece), false);
        List<long[]> matches = new ArrayList<>();
        index.lookup(chunkStart, lengthSectors, new LookupVisitor() {
            @Override
            public void hole(long startSector, int holeSectors) {
            }

            @Override
            public void extent(long startSector, int pieceSectors, long location, int crc, int crcOffset,
                               int crcLength) {
                int into = (int) (startSector - chunkStart);
                if (ExtentLocation.withDirty(location, false) == ExtentLocation.shifted(oldAtChunk, into)) {
                    matches.add(new long[] {startSector, pieceSectors, ExtentLocation.dirty(location) ? 1 : 0});
                }
            }
        });
        for (long[] match : matches) {
            int into = (int) (match[0] - chunkStart);
            index.insertPiece(match[0], (int) match[1], newBucket, newOffset + into, newGeneration, match[2] == 1,
                    crc32c, into, lengthSectors, VolumeIndex.EPOCH_UNCHANGED); // same data, same epoch
        }
    }

    private static int crc(ByteBuffer data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }
}

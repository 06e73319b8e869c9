package io.blockcache.gc;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DirectBufferPool;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.VolumeIndex;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Moving GC: copies the live extents of sparsely used buckets to the GC write point so the
 * buckets empty and are released. In rounds of up to {@link #PIECES_PER_ROUND} pieces: for each piece, check the old
 * bucket still has the generation the piece was found under, pin it, read the range its CRC covers and verify it (all
 * of a round's reads at once); then write the round's verified pieces back to back to the GC write point, with one
 * device write per reservation (usually one per round); then, in one loop step per write, look each piece up and
 * re-point every part that is <em>still</em> at the old location (the same replace-only-if-unchanged rule as
 * writeback). A front-end write or trim that raced with the copy changed the location, so its data wins. Dirty
 * parts are journaled through {@link VolumeIndex#insertPiece} (the journal commit flushes the cache device first, so
 * the copy is durable before the record); clean parts need no journal. Moving GC moves dirty data; it never drops it.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class MovingGc {
    /**
     * Pieces read, and then written with one write, per round. Why several: under a 4 KiB random-write load
     * compaction copies one block in seven written (docs/GC.md "Compaction"), and each copy's own write was a
     * system call on the loop thread (3.4 % of its time, docs/BENCHMARKS.md); a round's reads are page-cache
     * transfers that complete at once on a fast cache device, so a round costs about one step's wait, not eight.
     */
    static final int PIECES_PER_ROUND = 8;
    /** A round up to this size is gathered into one kept direct buffer; a larger one (large extents) in a new one. */
    static final int KEPT_BUFFER_BYTES = 256 << 10;
    /** Span buffer classes: one page up to 256 KiB (a span is at most an extent, 128 KiB by default). */
    static final int SPAN_SMALLEST_CLASS_BYTES = 4 << 10;
    static final int SPAN_LARGEST_CLASS_BYTES = 256 << 10;
    /** Free span buffer bytes kept: a round of 4 KiB-to-128 KiB spans. */
    static final long SPAN_RETAINED_BYTES_MAX = 1L << 20;

    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final CacheLayout layout;
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final List<VolumeIndex> volumes;
    private final WritePoint writePoint;
    private final GcStats stats;
    private final WritePoint.Reservation reservation = new WritePoint.Reservation();
    private ByteBuffer keptBuffer;
    private List<MovePiece> pieces;
    private int next;
    private boolean noRoom;
    private Runnable done;

    // The round in progress: slots in the order of the pieces, filled as their reads complete.
    private final MovePiece[] slotPiece = new MovePiece[PIECES_PER_ROUND];
    private final ByteBuffer[] slotData = new ByteBuffer[PIECES_PER_ROUND];
    /** The buffer each slot's span was read into (slotData is a view of it), until the round is gathered. */
    private final ByteBuffer[] slotSpan = new ByteBuffer[PIECES_PER_ROUND];
    /**
     * The spans' buffers: direct, so the cache device reads into them as they are (a heap buffer took a JDK temporary
     * one and a copy), and reused, where a new one per piece was the loop's largest garbage under a write load that
     * compacts. A round holds at most {@link #PIECES_PER_ROUND} spans; longer spans than a class get heap buffers.
     */
    private final DirectBufferPool spans = new DirectBufferPool(SPAN_SMALLEST_CLASS_BYTES, SPAN_LARGEST_CLASS_BYTES,
            PIECES_PER_ROUND * (long) SPAN_LARGEST_CLASS_BYTES, SPAN_RETAINED_BYTES_MAX);
    private int readsLeft;
    // The round's verified pieces, back to back in `batch`: piece k starts at roundStart[k] sectors.
    private final MovePiece[] roundPiece = new MovePiece[PIECES_PER_ROUND];
    private final int[] roundStart = new int[PIECES_PER_ROUND + 1];
    private int roundPieces;
    private final int[] partCrc = new int[PIECES_PER_ROUND];
    private ByteBuffer batch;

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

    /** Moves {@code toMove} in order, a round at a time, then runs {@code whenDone}; stops early without room. */
    void move(List<MovePiece> toMove, Runnable whenDone) {
        this.pieces = toMove;
        this.next = 0;
        this.noRoom = false;
        this.done = whenDone;
        loop.execute(this::startRound);
    }

    /** Reads the next round's pieces, or ends the move. */
    private void startRound() {
        if (noRoom || next >= pieces.size()) {
            pieces = null;
            batch = null;
            done.run();
            return;
        }
        int end = Math.min(pieces.size(), next + PIECES_PER_ROUND);
        int first = next;
        next = end;
        readsLeft = end - first; // set before any read: one that completes at once cannot end the round early
        for (int i = first; i < end; i++) {
            readPiece(pieces.get(i), i - first);
        }
    }

    private void readPiece(MovePiece piece, int slot) {
        int bucket = ExtentLocation.bucket(piece.location());
        if (table.generation(bucket) != ExtentLocation.generation(piece.location())) {
            pieceRead(slot, null, null); // the bucket was emptied or evicted meanwhile: nothing to move
            return;
        }
        allocator.pin(bucket);
        int spanBytes = piece.crcLengthSectors() * BlockDevice.SECTOR_BYTES;
        ByteBuffer span = spans.take(spanBytes);
        slotSpan[slot] = span;
        cacheDevice.read(layout.byteOffset(bucket, piece.crcOffsetInBucketSectors()), span, result -> {
            allocator.unpin(bucket);
            if (!result.ok()) {
                releaseSpan(slot);
                pieceRead(slot, null, null); // left in place; a front-end read reports the error
                return;
            }
            // Limits, not clear(): a pooled buffer may be longer than the span.
            if (crc(span.duplicate().limit(spanBytes).position(0)) != piece.crc32c()) {
                stats.addMoveChecksumFailure();
                releaseSpan(slot);
                pieceRead(slot, null, null);
                return;
            }
            int from = (ExtentLocation.offsetInBucketSectors(piece.location()) - piece.crcOffsetInBucketSectors())
                    * BlockDevice.SECTOR_BYTES;
            pieceRead(slot, piece, span.duplicate().limit(from + piece.lengthSectors() * BlockDevice.SECTOR_BYTES)
                    .position(from).slice());
        });
    }

    /** Gives slot {@code slot}'s span buffer back to the pool. */
    private void releaseSpan(int slot) {
        spans.give(slotSpan[slot]);
        slotSpan[slot] = null;
    }

    /** A piece's read ended ({@code piece} null: nothing to move); the last of the round writes the round. */
    private void pieceRead(int slot, MovePiece piece, ByteBuffer data) {
        slotPiece[slot] = piece;
        slotData[slot] = data;
        if (--readsLeft == 0) {
            gatherRound();
            writeFrom(0);
        }
    }

    /** Puts the round's verified pieces, in order, back to back into {@link #batch}. */
    private void gatherRound() {
        roundPieces = 0;
        int sectors = 0;
        for (int slot = 0; slot < PIECES_PER_ROUND; slot++) {
            if (slotPiece[slot] != null) {
                roundPiece[roundPieces] = slotPiece[slot];
                roundStart[roundPieces++] = sectors;
                sectors += slotPiece[slot].lengthSectors();
            }
        }
        roundStart[roundPieces] = sectors;
        int bytes = sectors * BlockDevice.SECTOR_BYTES;
        if (bytes <= KEPT_BUFFER_BYTES) {
            if (keptBuffer == null) {
                keptBuffer = ByteBuffer.allocateDirect(KEPT_BUFFER_BYTES);
            }
            batch = keptBuffer.clear().limit(bytes);
        } else {
            batch = ByteBuffer.allocateDirect(bytes); // rare: large extents; collected with the round
        }
        for (int slot = 0; slot < PIECES_PER_ROUND; slot++) {
            if (slotPiece[slot] != null) {
                batch.put(slotData[slot]);
            }
            if (slotSpan[slot] != null) {
                releaseSpan(slot);
            }
            slotPiece[slot] = null;
            slotData[slot] = null;
        }
        batch.flip();
    }

    /**
     * Writes the round from sector {@code doneSectors} on into as much as the GC write point grants (a reservation
     * ends at a bucket's end), installs what that write held, then goes on with the rest, or the next round.
     */
    private void writeFrom(int doneSectors) {
        int totalSectors = roundStart[roundPieces];
        if (doneSectors == totalSectors) {
            loop.execute(this::startRound);
            return;
        }
        if (!writePoint.reserve(totalSectors - doneSectors, reservation)) {
            noRoom = true; // no free bucket: moving more would only compete with the front end
            loop.execute(this::startRound);
            return;
        }
        int lengthSectors = reservation.lengthSectors();
        int newBucket = reservation.bucket();
        int newOffset = reservation.offsetSectors();
        int newGeneration = table.generation(newBucket);
        int endSectors = doneSectors + lengthSectors;
        // Each piece's part in this write is an extent of its own with its own CRC, computed before the write (one
        // write of a round is in flight at a time, so the CRCs are kept in a field).
        for (int k = 0; k < roundPieces; k++) {
            if (partFrom(k, doneSectors) < partTo(k, endSectors)) {
                partCrc[k] = crc(sectors(partFrom(k, doneSectors), partTo(k, endSectors)));
            }
        }
        cacheDevice.write(layout.byteOffset(newBucket, newOffset), sectors(doneSectors, endSectors), false,
                result -> {
                    if (result.ok()) {
                        // Before the parts are installed, while the new bucket is pinned (docs/FORMAT.md §9).
                        allocator.blockChecksums().learn(newBucket, newOffset, sectors(doneSectors, endSectors));
                        VolumeIndex dirtyIn = null;
                        for (int k = 0; k < roundPieces; k++) {
                            int from = partFrom(k, doneSectors);
                            int to = partTo(k, endSectors);
                            if (from < to && install(roundPiece[k], from - roundStart[k], to - from, newBucket,
                                    newOffset + (from - doneSectors), newGeneration, partCrc[k])) {
                                dirtyIn = volumes.get(roundPiece[k].volume());
                            }
                        }
                        if (dirtyIn != null) { // the copy's block CRCs survive a crash as its dirty extents do
                            dirtyIn.journalBlockCrcs(newBucket, newGeneration, newOffset, lengthSectors);
                        }
                        stats.addMovedBytes((long) lengthSectors * BlockDevice.SECTOR_BYTES);
                    }
                    allocator.unpin(newBucket);
                    writeFrom(endSectors);
                });
    }

    /** Adds a volume attached while the cache runs; its pieces carry its place in the list (GarbageCollector). */
    void addVolume(VolumeIndex volume) {
        volumes.add(volume);
    }

    /** Where piece {@code k}'s part in a write that starts at round sector {@code writeFrom} begins. */
    private int partFrom(int k, int writeFrom) {
        return Math.max(writeFrom, roundStart[k]);
    }

    /** Where piece {@code k}'s part in a write that ends at round sector {@code writeTo} ends (empty if <= from). */
    private int partTo(int k, int writeTo) {
        return Math.min(writeTo, roundStart[k + 1]);
    }

    /** The round's sectors {@code [from, to)}, as a view of {@link #batch}. */
    private ByteBuffer sectors(int from, int to) {
        return batch.duplicate().limit(to * BlockDevice.SECTOR_BYTES).position(from * BlockDevice.SECTOR_BYTES)
                .slice();
    }

    /**
     * Re-points, in this one loop step, every part of the chunk still at its old location.
     *
     * @return whether a dirty part was re-pointed (and journaled)
     */
    private boolean install(MovePiece piece, int chunkIntoPiece, int lengthSectors, int newBucket, int newOffset,
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
        boolean dirty = false;
        for (long[] match : matches) {
            int into = (int) (match[0] - chunkStart);
            index.insertPiece(match[0], (int) match[1], newBucket, newOffset + into, newGeneration, match[2] == 1,
                    crc32c, into, lengthSectors, VolumeIndex.EPOCH_UNCHANGED); // same data, same epoch
            dirty |= match[2] == 1;
        }
        return dirty;
    }

    private static int crc(ByteBuffer data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }
}

package io.blockcache.volume;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.PartCount;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Copies one write's data into the cache: cuts it into extents of at most
 * {@link VolumeConfig#extentMaxSectors()}, appends each at a write point, and once every piece is on the
 * cache device installs the parts that no newer write has claimed (see {@link InFlightWrites}).
 *
 * <p>Used for write-back writes (dirty) and for the clean copies of write-through writes and read-miss
 * fills. Space is reserved up front: if the cache runs out part-way, nothing is written and
 * {@link #reserve()} says so, so the caller can go around the cache instead.
 *
 * <p>Reused (nothing allocated per steady-state request on the loop thread): {@link #take} hands out
 * one from the volume's free list, and it goes back there when {@link #reserve()} fails or when its
 * {@link #write} completes, just before its callback runs; a caller never touches it after either. Its pieces
 * live in arrays that grow once, it is its own join of piece writes and its own visitor of the visible parts, and
 * a write of one piece hands the device the caller's buffer itself (a view only per piece of a longer write). The
 * caller's buffer keeps its position and limit. One that is taken and then not used is simply left to the garbage
 * collector.
 *
 * <p>Thread rule: the loop thread.
 */
final class CachedWrite implements IoCallback, InFlightWrites.RangeVisitor {
    /** Writes kept for reuse: more than the front end has in flight at once (NBD: 32 per connection). */
    static final int FREE_MAX = 1024;

    private final VolumeContext context;
    private final ArrayDeque<CachedWrite> free;
    private final WritePoint.Reservation reservation = new WritePoint.Reservation();
    private long startSector;
    private ByteBuffer data;
    private int dataPosition;
    private int lengthSectors;
    private boolean dirty;
    private WritePoint writePoint;
    /**
     * The epoch in force when the write was routed: its dirty extents belong to it (docs/WRITEBACK.md); {@link
     * DirtyEpochs#ORDER_UNKNOWN} if the volume kept no epoch order then.
     */
    private long epoch;
    /** The volume's run of epoch tracking when the write was routed ({@link DirtyEpochs#trackingRun}). */
    private long trackingRun;
    private IoResult markFailure;
    private InFlightWrites.Entry entry;
    private IoCallback callback;
    /** Its piece writes, the damage mark and the seal. */
    private final PartCount parts = new PartCount();

    // The pieces, one extent each: where its sectors went in the cache, and their checksum once computed.
    private int pieceCount;
    private long[] pieceStart = new long[1];
    private int[] pieceLength = new int[1];
    private int[] pieceBucket = new int[1];
    private int[] pieceOffset = new int[1];
    private int[] pieceGeneration = new int[1];
    /** Set by {@link #write} (the data is checksummed as it is handed to the device), read by install. */
    private int[] pieceCrc = new int[1];
    /**
     * The 4 KiB blocks of the bucket each piece fills whole (docs/FORMAT.md §9): the first, how many, and where their
     * CRCs start in {@link #blockCrcs}; set by {@link #write} with the span CRC.
     */
    private int[] pieceFirstBlock = new int[1];
    private int[] pieceBlockCount = new int[1];
    private int[] pieceBlockCrcsFrom = new int[1];
    private int[] blockCrcs = new int[BlockChecksums.BLOCK_SECTORS];
    private int blockCrcCount;
    /** The piece {@link #visit} installs (install walks the pieces, each over the entry's visible parts). */
    private int installing;

    private CachedWrite(VolumeContext context, ArrayDeque<CachedWrite> free) {
        this.context = context;
        this.free = free;
    }

    /**
     * A write of {@code data}'s remaining bytes (whole sectors) at {@code startSector}, from the volume's free list
     * or new. Call {@link #reserve()} next.
     */
    static CachedWrite take(VolumeContext context, long startSector, ByteBuffer data, boolean dirty) {
        CachedWrite write = context.cachedWrites.pollFirst();
        if (write == null) {
            write = new CachedWrite(context, context.cachedWrites);
        }
        write.startSector = startSector;
        write.data = data;
        write.dataPosition = data.position();
        write.lengthSectors = data.remaining() / BlockDevice.SECTOR_BYTES;
        write.dirty = dirty;
        write.writePoint = dirty ? context.space.dirtyWritePoint() : context.space.cleanWritePoint();
        // Routed while the volume keeps no epoch order: the write passed no epoch gate, and an around-cache write
        // routed beside it may reach the backing device in any order, so its data has no known order even if it
        // lands after ordering was turned on (it then joins the data that was dirty at the switch). Tagging it with
        // the current epoch let it overwrite unknown-order data without waiting and hide it behind a later epoch
        // (fuzz seed 90249).
        DirtyEpochs epochs = context.index.epochs();
        write.epoch = epochs.tracking() ? epochs.current() : DirtyEpochs.ORDER_UNKNOWN;
        write.trackingRun = epochs.trackingRun();
        write.pieceCount = 0;
        write.markFailure = null;
        return write;
    }

    /**
     * Reserves cache space for every sector. Each reserved bucket is pinned until {@link #write} finishes.
     *
     * @return false if the cache had no room; then nothing stays reserved or pinned, and this object is no
     *     longer the caller's
     */
    boolean reserve() {
        int done = 0;
        while (done < lengthSectors) {
            int want = Math.min(lengthSectors - done, context.config.extentMaxSectors());
            if (!writePoint.reserve(want, reservation)) {
                releasePins();
                giveBack();
                return false;
            }
            int bucket = reservation.bucket();
            int generation = context.space.table().generation(bucket);
            if (dirty) {
                context.hooks.dirtyBucketUsed(bucket, generation);
            }
            addPiece(startSector + done, reservation.lengthSectors(), bucket, reservation.offsetSectors(), generation);
            done += reservation.lengthSectors();
        }
        return true;
    }

    private void addPiece(long start, int length, int bucket, int offsetSectors, int generation) {
        if (pieceCount == pieceStart.length) {
            int capacity = pieceCount * 2;
            pieceStart = Arrays.copyOf(pieceStart, capacity);
            pieceLength = Arrays.copyOf(pieceLength, capacity);
            pieceBucket = Arrays.copyOf(pieceBucket, capacity);
            pieceOffset = Arrays.copyOf(pieceOffset, capacity);
            pieceGeneration = Arrays.copyOf(pieceGeneration, capacity);
            pieceCrc = Arrays.copyOf(pieceCrc, capacity);
            pieceFirstBlock = Arrays.copyOf(pieceFirstBlock, capacity);
            pieceBlockCount = Arrays.copyOf(pieceBlockCount, capacity);
            pieceBlockCrcsFrom = Arrays.copyOf(pieceBlockCrcsFrom, capacity);
        }
        pieceStart[pieceCount] = start;
        pieceLength[pieceCount] = length;
        pieceBucket[pieceCount] = bucket;
        pieceOffset[pieceCount] = offsetSectors;
        pieceGeneration[pieceCount] = generation;
        pieceCount++;
    }

    /**
     * Writes every reserved piece to the cache device; then, for a write that is still current, installs the
     * visible parts of {@code entry} in the index. Calls back with the outcome; on failure nothing is
     * installed. This object is no longer the caller's once this is called.
     */
    void write(InFlightWrites.Entry entry, IoCallback callback) {
        this.entry = entry;
        this.callback = callback;
        parts.begin();
        markDamage();
        blockCrcCount = 0;
        for (int i = 0; i < pieceCount; i++) {
            ByteBuffer piece = pieceData(i);
            pieceCrc[i] = checksum(i, piece);
            parts.add();
            context.cacheDevice.write(context.cacheOffset(pieceBucket[i], pieceOffset[i]), piece, false, this);
        }
        complete(IoResult.OK); // the seal: an early piece completion cannot finish the write too soon
    }

    /**
     * Checksums piece {@code i}: a CRC32C for each 4 KiB block of the bucket it fills whole, and the span CRC of the
     * whole piece, returned. A piece made of whole blocks gets its span CRC from the block CRCs ({@link
     * io.blockcache.format.Crc#append4KiB}) rather than a second pass over the data; one that starts or ends inside a
     * block (after sub-4 KiB writes) is checksummed whole as well.
     */
    private int checksum(int i, ByteBuffer piece) {
        int offset = pieceOffset[i];
        int length = pieceLength[i];
        int firstBlock = BlockChecksums.firstWholeBlock(offset);
        int count = Math.max(0, BlockChecksums.endWholeBlock(offset, length) - firstBlock);
        pieceFirstBlock[i] = firstBlock;
        pieceBlockCount[i] = count;
        pieceBlockCrcsFrom[i] = blockCrcCount;
        if (blockCrcCount + count > blockCrcs.length) {
            blockCrcs = Arrays.copyOf(blockCrcs, Math.max(blockCrcs.length * 2, blockCrcCount + count));
        }
        int from = piece.position() + (firstBlock * BlockChecksums.BLOCK_SECTORS - offset) * BlockDevice.SECTOR_BYTES;
        int spanCrc = 0;
        for (int k = 0; k < count; k++) {
            int crc = Crc.of(piece, from + k * BlockChecksums.BLOCK_BYTES, BlockChecksums.BLOCK_BYTES);
            blockCrcs[blockCrcCount + k] = crc;
            spanCrc = k == 0 ? crc : io.blockcache.format.Crc.append4KiB(spanCrc, crc);
        }
        blockCrcCount += count;
        boolean wholeBlocks = offset % BlockChecksums.BLOCK_SECTORS == 0 && length % BlockChecksums.BLOCK_SECTORS == 0;
        return wholeBlocks ? spanCrc : Crc.of(piece);
    }

    /**
     * A dirty write is acknowledged only once its regions are durably marked in the damage map on the backing
     * device (see {@link DamageMap}); the mark runs beside the cache write, and costs nothing when already made.
     */
    private void markDamage() {
        DamageMap damage = context.damage;
        if (!dirty || damage == null) {
            return;
        }
        if (damage.covers(startSector, lengthSectors)) {
            damage.stats().writesCovered.incrementAndGet();
            return;
        }
        parts.add();
        damage.mark(startSector, lengthSectors, result -> { // rare: once per region until the map is cleared
            if (!result.ok()) {
                markFailure = result;
            }
            complete(result);
        });
    }

    /**
     * The bytes of piece {@code i}: the caller's buffer itself when the piece is the whole write (the device may
     * move its position; {@link #finish} puts it back), else a view.
     */
    private ByteBuffer pieceData(int i) {
        if (pieceCount == 1) {
            return data;
        }
        int from = dataPosition + (int) (pieceStart[i] - startSector) * BlockDevice.SECTOR_BYTES;
        return data.slice(from, pieceLength[i] * BlockDevice.SECTOR_BYTES);
    }

    /** One part (a piece, the damage mark, or the seal) is done; the last one finishes the write. */
    @Override
    public void complete(IoResult result) {
        IoResult outcome = parts.complete(result, "cached write");
        if (outcome != null) {
            finish(outcome);
        }
    }

    private void finish(IoResult result) {
        data.position(dataPosition); // a piece written from the caller's buffer itself moved it
        if (result.ok()) {
            install();
            context.stats.writeCachedSectors.addAndGet(lengthSectors);
        } else if (markFailure == null) {
            context.stats.cacheWriteErrors.incrementAndGet();
        }
        releasePins();
        IoCallback caller = callback;
        IoResult failure = markFailure;
        giveBack();
        if (result.ok()) {
            caller.complete(IoResult.OK);
        } else if (failure != null) {
            caller.complete(failure); // the write is not acknowledged: its regions may not be marked
        } else {
            caller.complete(IoResult.error(IoStatus.IO_ERROR, "cache device write failed: " + result.message()));
        }
    }

    /** Back to the free list, holding nothing of the request: before the caller runs, which may take it. */
    private void giveBack() {
        data = null;
        entry = null;
        callback = null;
        markFailure = null;
        if (free.size() < FREE_MAX) {
            free.addFirst(this);
        }
    }

    /**
     * The epoch the write's dirty extents join now: its routed one, unless ordering was switched off (and maybe on
     * again) while it was in flight; then data routed after it may already sit in the unknown-order epoch, so it goes
     * there too.
     */
    private long epochNow() {
        return context.index.epochs().trackingRun() == trackingRun ? epoch : DirtyEpochs.ORDER_UNKNOWN;
    }

    private void install() {
        BlockChecksums checksums = context.space.allocator().blockChecksums();
        for (installing = 0; installing < pieceCount; installing++) {
            // Before the extent is visible, while the bucket is still pinned (no bump can come in between). A piece
            // of one block or less needs none: its span CRC covers no more than the block a read of it touches.
            if (pieceLength[installing] > BlockChecksums.BLOCK_SECTORS && pieceBlockCount[installing] > 0) {
                if (dirty) { // journaled first (docs/FORMAT.md §7 rule 6), to survive a crash as the extent does
                    context.journal.appendBlockCrcs(pieceBucket[installing], pieceGeneration[installing],
                            pieceFirstBlock[installing], pieceBlockCount[installing], blockCrcs,
                            pieceBlockCrcsFrom[installing]);
                }
                checksums.put(pieceBucket[installing], pieceFirstBlock[installing], pieceBlockCount[installing],
                        blockCrcs, pieceBlockCrcsFrom[installing]);
            }
            entry.forEachVisible(this);
        }
        context.inFlight.installed(entry);
    }

    /** Installs the part of piece {@link #installing} inside one visible range of the entry. */
    @Override
    public void visit(long visibleStart, long visibleLength) {
        int i = installing;
        long from = Math.max(visibleStart, pieceStart[i]);
        long to = Math.min(visibleStart + visibleLength, pieceStart[i] + pieceLength[i]);
        if (from < to) {
            int cutHead = (int) (from - pieceStart[i]);
            context.index.insertPiece(from, (int) (to - from), pieceBucket[i], pieceOffset[i] + cutHead,
                    pieceGeneration[i], dirty, pieceCrc[i], cutHead, pieceLength[i], epochNow());
        }
    }

    private void releasePins() {
        for (int i = 0; i < pieceCount; i++) {
            context.space.allocator().unpin(pieceBucket[i]);
        }
    }
}

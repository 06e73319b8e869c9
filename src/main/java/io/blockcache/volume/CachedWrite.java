package io.blockcache.volume;

import io.blockcache.cache.WritePoint;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies one write's data into the cache: cuts it into extents of at most
 * {@link VolumeConfig#extentMaxSectors()}, appends each at a write point, and once every piece is on the
 * cache device installs the parts that no newer write has claimed (see {@link InFlightWrites}).
 *
 * <p>Used for write-back writes (dirty) and for the clean copies of write-through writes and read-miss
 * fills. Space is reserved up front: if the cache runs out part-way, nothing is written and
 * {@link #reserve()} says so, so the caller can go around the cache instead.
 *
 * <p>Thread rule: the loop thread.
 */
final class CachedWrite {
    private final VolumeContext context;
    private final long startSector;
    private final ByteBuffer data;
    private final boolean dirty;
    private final List<Piece> pieces = new ArrayList<>();
    private final WritePoint writePoint;
    /**
     * The epoch in force when the write was routed: its dirty extents belong to it (docs/WRITEBACK.md); {@link
     * DirtyEpochs#ORDER_UNKNOWN} if the volume kept no epoch order then.
     */
    private final long epoch;
    /** The volume's run of epoch tracking when the write was routed ({@link DirtyEpochs#trackingRun}). */
    private final long trackingRun;
    private IoResult markFailure;

    /** One extent of the write: where its sectors went in the cache, and their checksum once computed. */
    private static final class Piece {
        private final long startSector;
        private final int lengthSectors;
        private final int bucket;
        private final int offsetSectors;
        private final int generation;
        /** Set by {@link #write} (the data is checksummed as it is handed to the device), read by install. */
        private int crc32c;

        Piece(long startSector, int lengthSectors, int bucket, int offsetSectors, int generation) {
            this.startSector = startSector;
            this.lengthSectors = lengthSectors;
            this.bucket = bucket;
            this.offsetSectors = offsetSectors;
            this.generation = generation;
        }
    }

    CachedWrite(VolumeContext context, long startSector, ByteBuffer data, boolean dirty) {
        this.context = context;
        this.startSector = startSector;
        this.data = data;
        this.dirty = dirty;
        this.writePoint = dirty ? context.space.dirtyWritePoint() : context.space.cleanWritePoint();
        // Routed while the volume keeps no epoch order: the write passed no epoch gate, and an around-cache write
        // routed beside it may reach the backing device in any order, so its data has no known order even if it
        // lands after ordering was turned on (it then joins the data that was dirty at the switch). Tagging it with
        // the current epoch let it overwrite unknown-order data without waiting and hide it behind a later epoch
        // (fuzz seed 90249).
        DirtyEpochs epochs = context.index.epochs();
        this.epoch = epochs.tracking() ? epochs.current() : DirtyEpochs.ORDER_UNKNOWN;
        this.trackingRun = epochs.trackingRun();
    }

    /**
     * Reserves cache space for every sector. Each reserved bucket is pinned until {@link #write} finishes.
     *
     * @return false if the cache had no room; then nothing stays reserved or pinned
     */
    boolean reserve() {
        int totalSectors = data.remaining() / BlockDevice.SECTOR_BYTES;
        WritePoint.Reservation reservation = new WritePoint.Reservation();
        int done = 0;
        while (done < totalSectors) {
            int want = Math.min(totalSectors - done, context.config.extentMaxSectors());
            if (!writePoint.reserve(want, reservation)) {
                releasePins();
                pieces.clear();
                return false;
            }
            int bucket = reservation.bucket();
            int generation = context.space.table().generation(bucket);
            if (dirty) {
                context.hooks.dirtyBucketUsed(bucket, generation);
            }
            pieces.add(new Piece(startSector + done, reservation.lengthSectors(), bucket,
                    reservation.offsetSectors(), generation));
            done += reservation.lengthSectors();
        }
        return true;
    }

    /**
     * Writes every reserved piece to the cache device; then, for a write that is still current, installs the
     * visible parts of {@code entry} in the index. Calls back with the outcome; on failure nothing is
     * installed.
     */
    void write(InFlightWrites.Entry entry, IoCallback callback) {
        IoJoin parts = new IoJoin(result -> finish(entry, result, callback));
        markDamage(parts);
        for (int i = 0; i < pieces.size(); i++) {
            Piece piece = pieces.get(i);
            ByteBuffer slice = slice(piece);
            piece.crc32c = Crc.of(slice);
            context.cacheDevice.write(context.cacheOffset(piece.bucket, piece.offsetSectors), slice, false,
                    parts.add());
        }
        parts.seal();
    }

    /**
     * A dirty write is acknowledged only once its regions are durably marked in the damage map on the backing
     * device (see {@link DamageMap}); the mark runs beside the cache write, and costs nothing when already made.
     */
    private void markDamage(IoJoin parts) {
        DamageMap damage = context.damage;
        if (!dirty || damage == null) {
            return;
        }
        long lengthSectors = data.remaining() / BlockDevice.SECTOR_BYTES;
        if (damage.covers(startSector, lengthSectors)) {
            damage.stats().writesCovered.incrementAndGet();
            return;
        }
        IoCallback marked = parts.add();
        damage.mark(startSector, lengthSectors, result -> {
            if (!result.ok()) {
                markFailure = result;
            }
            marked.complete(result);
        });
    }

    private ByteBuffer slice(Piece piece) {
        int from = data.position() + (int) (piece.startSector - startSector) * BlockDevice.SECTOR_BYTES;
        return data.slice(from, piece.lengthSectors * BlockDevice.SECTOR_BYTES); // one view, not a duplicate too
    }

    private void finish(InFlightWrites.Entry entry, IoResult result, IoCallback callback) {
        if (result.ok()) {
            install(entry);
            context.stats.writeCachedSectors.addAndGet(data.remaining() / BlockDevice.SECTOR_BYTES);
        } else if (markFailure == null) {
            context.stats.cacheWriteErrors.incrementAndGet();
        }
        releasePins();
        if (result.ok()) {
            callback.complete(IoResult.OK);
        } else if (markFailure != null) {
            callback.complete(markFailure); // the write is not acknowledged: its regions may not be marked
        } else {
            callback.complete(IoResult.error(IoStatus.IO_ERROR, "cache device write failed: " + result.message()));
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

    private void install(InFlightWrites.Entry entry) {
        for (int i = 0; i < pieces.size(); i++) { // indexed: no iterator per write
            Piece piece = pieces.get(i);
            long pieceEnd = piece.startSector + piece.lengthSectors;
            entry.forEachVisible((visibleStart, visibleLength) -> {
                long from = Math.max(visibleStart, piece.startSector);
                long to = Math.min(visibleStart + visibleLength, pieceEnd);
                if (from < to) {
                    int cutHead = (int) (from - piece.startSector);
                    context.index.insertPiece(from, (int) (to - from), piece.bucket, piece.offsetSectors + cutHead,
                            piece.generation, dirty, piece.crc32c, cutHead, piece.lengthSectors, epochNow());
                }
            });
        }
        context.inFlight.installed(entry);
    }

    private void releasePins() {
        for (int i = 0; i < pieces.size(); i++) { // indexed: no iterator per write
            context.space.allocator().unpin(pieces.get(i).bucket);
        }
    }
}

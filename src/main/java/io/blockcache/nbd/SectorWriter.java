package io.blockcache.nbd;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.PartCount;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Writes data or zeroes at any byte alignment to a volume that takes only whole sectors: the partial head and
 * tail sectors are read, patched and written back (read-modify-write); the whole-sector middle goes to the
 * volume as it is. The pieces are written under one exclusive lock on all the sectors the range touches, held
 * from before the first read to after the last write, so two overlapping writes (from any connection of the
 * export) never interleave and never lose an update. Aligned writes take the lock too: an aligned write that
 * landed between another request's read and write-back of a shared sector would be undone by it.
 *
 * <p>Each sector is written whole, so a reader never sees a mix of old and new inside a sector. Pieces are
 * written in parallel; with FUA each piece is FUA, so the request is durable when all of them are.
 *
 * <p>Reused (nothing allocated per steady-state request on the loop thread): one writer carries one write
 * at a time, again and again ({@link InFlightRequest#sectorWriter} keeps one per request object). It is its own lock
 * range's grant callback and its own join of pieces; an aligned write goes to the volume as the caller's buffer
 * itself. It is idle again just before it calls its caller, having released the lock. Unaligned writes still
 * allocate (their span, views, the patched sector and its callback): they are rare and not the hot path.
 *
 * <p>Thread rule: the volumes' loop thread.
 */
final class SectorWriter implements IoCallback, Consumer<SectorRangeLock.Range> {
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private final Export export;
    private final SectorRangeLock.Range range = new SectorRangeLock.Range(this);
    private long offsetBytes;
    private long lengthBytes;
    private ByteBuffer data;
    private boolean fua;
    /** The caller while a write is under way; null when idle. */
    private IoCallback done;
    /** Its pieces and the seal. */
    private final PartCount parts = new PartCount();

    SectorWriter(Export export) {
        this.export = export;
    }

    /**
     * Writes {@code data} (exactly {@code lengthBytes} bytes at position 0.., or null for zeroes) at
     * {@code offsetBytes}, then calls {@code done} once. The caller has checked the range against the volume size,
     * and keeps {@code data} unchanged until {@code done} is called.
     *
     * @throws IllegalStateException if this writer's previous write has not completed
     */
    void write(long offsetBytes, long lengthBytes, ByteBuffer data, boolean fua, IoCallback done) {
        if (this.done != null) {
            throw new IllegalStateException("sector writer reused while a write of " + this.lengthBytes
                    + " bytes at " + this.offsetBytes + " is under way");
        }
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.data = data;
        this.fua = fua;
        this.done = done;
        long firstSector = offsetBytes / SECTOR_BYTES;
        long endSector = (offsetBytes + lengthBytes + SECTOR_BYTES - 1) / SECTOR_BYTES;
        export.lock().acquire(range, firstSector, endSector);
    }

    /** The lock is granted (inside {@link #write}, or inside the release of an overlapping write): write. */
    @Override
    public void accept(SectorRangeLock.Range granted) {
        parts.begin();
        if (offsetBytes % SECTOR_BYTES == 0 && lengthBytes % SECTOR_BYTES == 0) {
            writeMiddle(offsetBytes, lengthBytes, data); // aligned: all of it, no view
        } else {
            writePieces(new SectorSpan(offsetBytes, lengthBytes));
        }
        complete(IoResult.OK); // the seal: an early completion of a piece cannot finish the write too soon
    }

    /** One piece (or the seal) is done; the last releases the lock, makes this writer idle and calls the caller. */
    @Override
    public void complete(IoResult result) {
        IoResult outcome = parts.complete(result, "sector write");
        if (outcome == null) {
            return;
        }
        export.lock().release(range);
        IoCallback caller = done;
        done = null;
        data = null;
        caller.complete(outcome);
    }

    private IoCallback addPiece() {
        parts.add();
        return this;
    }

    private void writeMiddle(long middleOffsetBytes, long middleBytes, ByteBuffer middle) {
        if (middle != null) {
            export.volume().write(middleOffsetBytes, middle, fua, addPiece());
        } else {
            export.volume().writeZeroes(middleOffsetBytes, middleBytes, fua, addPiece());
        }
    }

    private void writePieces(SectorSpan span) {
        int headBytes = (int) span.headBytes();
        int tailBytes = (int) span.tailBytes();
        if (span.hasHead()) {
            int inSector = (int) (span.offsetBytes() % SECTOR_BYTES);
            patch(span.firstSector(), inSector, headBytes, slice(data, 0, headBytes), addPiece());
        }
        long middleBytes = span.middleBytes();
        if (middleBytes > 0) {
            writeMiddle(span.middleOffsetBytes(), middleBytes, slice(data, headBytes, (int) middleBytes));
        }
        if (span.hasTail()) {
            int from = (int) (span.lengthBytes() - tailBytes);
            patch(span.tailSector(), 0, tailBytes, slice(data, from, tailBytes), addPiece());
        }
    }

    /** Reads one sector, replaces {@code [inSector, + bytes)} with {@code patch} (null: zeroes), writes it. */
    private void patch(long sector, int inSector, int bytes, ByteBuffer patch, IoCallback pieceDone) {
        Volume volume = export.volume();
        ByteBuffer buffer = ByteBuffer.allocate(SECTOR_BYTES);
        long sectorOffsetBytes = sector * SECTOR_BYTES;
        boolean pieceFua = fua;
        volume.read(sectorOffsetBytes, buffer, read -> {
            if (!read.ok()) {
                pieceDone.complete(read);
                return;
            }
            if (patch != null) {
                buffer.put(inSector, patch, patch.position(), bytes);
            } else {
                java.util.Arrays.fill(buffer.array(), inSector, inSector + bytes, (byte) 0);
            }
            volume.write(sectorOffsetBytes, buffer.clear(), pieceFua, pieceDone);
        });
    }

    private static ByteBuffer slice(ByteBuffer data, int from, int bytes) {
        return data == null ? null : data.slice(data.position() + from, bytes);
    }
}

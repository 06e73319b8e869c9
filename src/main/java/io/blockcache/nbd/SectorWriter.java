package io.blockcache.nbd;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;

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
 * <p>Thread rule: the volumes' loop thread.
 */
final class SectorWriter {
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private final Export export;

    SectorWriter(Export export) {
        this.export = export;
    }

    /**
     * Writes {@code data} (exactly {@code span.lengthBytes()} bytes, or null for zeroes) at the span.
     * The caller has checked the range against the volume size.
     */
    void write(SectorSpan span, ByteBuffer data, boolean fua, IoCallback done) {
        SectorRangeLock lock = export.lock();
        lock.acquire(span.firstSector(), span.endSector(), held -> {
            IoJoin join = new IoJoin(result -> {
                lock.release(held);
                done.complete(result);
            });
            writePieces(span, data, fua, join);
            join.seal();
        });
    }

    private void writePieces(SectorSpan span, ByteBuffer data, boolean fua, IoJoin join) {
        Volume volume = export.volume();
        int headBytes = (int) span.headBytes();
        int tailBytes = (int) span.tailBytes();
        if (span.hasHead()) {
            int inSector = (int) (span.offsetBytes() % SECTOR_BYTES);
            patch(span.firstSector(), inSector, headBytes, slice(data, 0, headBytes), fua, join.add());
        }
        long middleBytes = span.middleBytes();
        if (middleBytes > 0) {
            if (data != null) {
                volume.write(span.middleOffsetBytes(), slice(data, headBytes, (int) middleBytes), fua, join.add());
            } else {
                volume.writeZeroes(span.middleOffsetBytes(), middleBytes, fua, join.add());
            }
        }
        if (span.hasTail()) {
            int from = (int) (span.lengthBytes() - tailBytes);
            patch(span.tailSector(), 0, tailBytes, slice(data, from, tailBytes), fua, join.add());
        }
    }

    /** Reads one sector, replaces {@code [inSector, + bytes)} with {@code patch} (null: zeroes), writes it. */
    private void patch(long sector, int inSector, int bytes, ByteBuffer patch, boolean fua, IoCallback done) {
        Volume volume = export.volume();
        ByteBuffer buffer = ByteBuffer.allocate(SECTOR_BYTES);
        long offsetBytes = sector * SECTOR_BYTES;
        volume.read(offsetBytes, buffer, read -> {
            if (!read.ok()) {
                done.complete(read);
                return;
            }
            if (patch != null) {
                buffer.put(inSector, patch, patch.position(), bytes);
            } else {
                java.util.Arrays.fill(buffer.array(), inSector, inSector + bytes, (byte) 0);
            }
            volume.write(offsetBytes, buffer.clear(), fua, done);
        });
    }

    private static ByteBuffer slice(ByteBuffer data, int from, int bytes) {
        return data == null ? null : data.slice(data.position() + from, bytes);
    }
}

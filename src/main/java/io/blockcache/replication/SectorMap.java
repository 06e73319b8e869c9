package io.blockcache.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which replicated request last wrote each sector of one volume, and (on a replica) its bytes: disjoint pieces,
 * each the part of one request still current. A newer request replaces the pieces it overlaps, splitting them.
 *
 * <p>Thread rule: one thread at a time (the loop on a serving node, Ratis's apply thread on a replica).
 */
final class SectorMap {
    static final int SECTOR_BYTES = 512;

    /**
     * One piece: sectors {@code [start, end)} as request {@code seq} left them; {@code data} null for zeroes, else
     * the request's bytes from {@code dataOffset} on (shared between the pieces of one request).
     */
    record Piece(long start, long end, long seq, byte[] data, int dataOffset) {
        long lengthSectors() {
            return end - start;
        }

        /** The part {@code [from, to)} of this piece. */
        Piece slice(long from, long to) {
            int offset = data == null ? 0 : dataOffset + (int) ((from - start) * SECTOR_BYTES);
            return new Piece(from, to, seq, data, offset);
        }
    }

    private final TreeMap<Long, Piece> pieces = new TreeMap<>();
    private long dataBytes;

    /** Request {@code seq} wrote {@code [start, + length)}: {@code data} (null for zeroes) from {@code offset}. */
    void put(long start, long length, long seq, byte[] data, int offset) {
        cut(start, start + length);
        add(new Piece(start, start + length, seq, data, offset));
    }

    /** Forgets {@code [start, + length)} whatever wrote it (a trim). */
    void remove(long start, long length) {
        cut(start, start + length);
    }

    /**
     * Forgets the parts of {@code [start, + length)} that request {@code seq} still holds.
     *
     * @return the sectors forgotten
     */
    long removeIfSeq(long start, long length, long seq) {
        long removed = 0;
        for (Piece piece : overlapping(start, start + length)) {
            if (piece.seq() == seq) {
                long from = Math.max(piece.start(), start);
                long to = Math.min(piece.end(), start + length);
                cut(from, to);
                removed += to - from;
            }
        }
        return removed;
    }

    /** The pieces overlapping {@code [start, end)}, clipped to it, in sector order. */
    List<Piece> overlapping(long start, long end) {
        List<Piece> found = new ArrayList<>();
        Map.Entry<Long, Piece> before = pieces.lowerEntry(start);
        if (before != null && before.getValue().end() > start) {
            found.add(before.getValue().slice(start, Math.min(before.getValue().end(), end)));
        }
        for (Piece piece : pieces.subMap(start, true, end, false).values()) {
            found.add(piece.slice(piece.start(), Math.min(piece.end(), end)));
        }
        return found;
    }

    /** Every piece, in sector order. */
    Iterable<Piece> all() {
        return pieces.values();
    }

    int pieceCount() {
        return pieces.size();
    }

    /** Bytes of data the pieces refer to (zero pieces count nothing). */
    long dataBytes() {
        return dataBytes;
    }

    /** Removes {@code [from, to)} from every piece, keeping the parts outside it. */
    private void cut(long from, long to) {
        for (Piece piece : overlapping(from, to)) {
            Piece whole = pieces.floorEntry(piece.start()).getValue(); // pieces are disjoint: the one holding it
            drop(whole);
            if (whole.start() < from) {
                add(whole.slice(whole.start(), from));
            }
            if (whole.end() > to) {
                add(whole.slice(to, whole.end()));
            }
        }
    }

    private void add(Piece piece) {
        pieces.put(piece.start(), piece);
        if (piece.data() != null) {
            dataBytes += piece.lengthSectors() * SECTOR_BYTES;
        }
    }

    private void drop(Piece piece) {
        pieces.remove(piece.start());
        if (piece.data() != null) {
            dataBytes -= piece.lengthSectors() * SECTOR_BYTES;
        }
    }
}

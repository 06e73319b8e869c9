package io.blockcache.index;

/**
 * The walk shared by {@link ExtentIndex#markClean} and {@link ExtentIndex#replaceIfUnchanged}: each piece of
 * a range that still holds exactly the expected location (same bucket and generation, offset shifted to the
 * piece) is rewritten in place, either cleaned or moved to a new location; pieces reaching outside the range
 * are split, and a piece overwritten since is left alone.
 *
 * <p>Thread rule: the index's owner thread.
 */
final class MatchingRewrite {
    private final ExtentTree tree;
    private final SectorTally tally;

    MatchingRewrite(ExtentTree tree, SectorTally tally) {
        this.tree = tree;
        this.tally = tally;
    }

    /**
     * Rewrites each piece of the range whose location equals {@code expected} shifted to the piece (dirty bit
     * compared only when {@code matchDirty}): cleaned, or when {@code move} re-pointed to {@code target} with
     * {@code targetCrc} covering the whole range.
     *
     * @return sectors rewritten
     */
    long rewrite(long startSector, int lengthSectors, long expected, boolean matchDirty,
                 long target, int targetCrc, boolean move) {
        long end = startSector + lengthSectors;
        long position = startSector;
        long changed = 0;
        while (position < end && tree.seekFirstEndingAfter(position)) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long pieceStart = leaf.start(i);
            if (pieceStart >= end) {
                break;
            }
            long from = Math.max(pieceStart, startSector);
            long to = Math.min(leaf.end(i), end);
            long location = leaf.location[i];
            long pieceAtFrom = ExtentLocation.shifted(location, (int) (from - pieceStart));
            long wantedAtFrom = ExtentLocation.shifted(expected, (int) (from - startSector));
            boolean same = matchDirty
                    ? pieceAtFrom == wantedAtFrom
                    : ExtentLocation.withDirty(pieceAtFrom, false) == wantedAtFrom;
            if (same) {
                changed += rewritePiece(leaf, i, from, to, target, targetCrc, startSector, lengthSectors, move);
            }
            position = to;
        }
        return changed;
    }

    /** Rewrites {@code [from, to)} of entry {@code i} (cleaned, or moved to {@code target}); returns its length. */
    private long rewritePiece(LeafNode leaf, int i, long from, long to, long target, int targetCrc,
                              long rangeStart, int rangeLength, boolean move) {
        long pieceStart = leaf.start(i);
        long pieceEnd = leaf.end(i);
        long location = leaf.location[i];
        int crc = leaf.crc[i];
        int span = leaf.crcSpan[i];
        int length = (int) (to - from);
        boolean dirty = ExtentLocation.dirty(location);
        long newLocation;
        int newCrc;
        int newSpan;
        if (move) {
            newLocation = ExtentLocation.withDirty(ExtentLocation.shifted(target, (int) (from - rangeStart)), dirty);
            newCrc = targetCrc;
            newSpan = CrcSpan.pack((int) (from - rangeStart), rangeLength);
            tally.moved(location, newLocation, length, dirty);
        } else {
            newLocation = ExtentLocation.withDirty(ExtentLocation.shifted(location, (int) (from - pieceStart)), false);
            newCrc = crc;
            newSpan = CrcSpan.shifted(span, (int) (from - pieceStart));
            tally.cleaned(location, length);
        }
        if (pieceStart == from && pieceEnd == to) {
            leaf.location[i] = newLocation; // start unchanged, so the tree order and separators still hold
            leaf.crc[i] = newCrc;
            leaf.crcSpan[i] = newSpan;
            return length;
        }
        tree.delete(pieceStart);
        if (pieceStart < from) {
            tree.insert(pieceStart, (int) (from - pieceStart), location, crc, span);
        }
        tree.insert(from, length, newLocation, newCrc, newSpan);
        if (to < pieceEnd) {
            int cut = (int) (to - pieceStart);
            tree.insert(to, (int) (pieceEnd - to), ExtentLocation.shifted(location, cut), crc,
                    CrcSpan.shifted(span, cut));
        }
        return length;
    }
}

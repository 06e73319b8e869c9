package io.blockcache.index;

/**
 * Unmaps a sector range from the tree: trims, splits or deletes the extents it overlaps, so that a newer
 * extent can take the range (insert) or the range becomes a hole (remove). Pieces left over keep their
 * location (offset shifted), generation, dirty bit and CRC, with the CRC span shifted to match.
 *
 * <p>Thread rule: the index's owner thread.
 */
final class RangeCutter {
    private final ExtentTree tree;
    private final SectorTally tally;

    RangeCutter(ExtentTree tree, SectorTally tally) {
        this.tree = tree;
        this.tally = tally;
    }

    /** Unmaps {@code [start, end)}: trims, splits or deletes overlapped extents; returns sectors removed. */
    long cut(long start, long end) {
        long removed = 0;
        if (tree.seekFloor(start) && tree.cursorLeaf.end(tree.cursorIndex) > start
                && tree.cursorLeaf.start(tree.cursorIndex) < start) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long extentStart = leaf.start(i);
            long extentEnd = leaf.end(i);
            long cutEnd = Math.min(extentEnd, end);
            leaf.setLength(i, (int) (start - extentStart)); // a tail trim keeps the start: order holds
            removed += tally.left(leaf.location[i], (int) (cutEnd - start));
            if (extentEnd > end) {
                int cut = (int) (end - extentStart);
                tree.insert(end, (int) (extentEnd - end), ExtentLocation.shifted(leaf.location[i], cut),
                        leaf.crc[i], CrcSpan.shifted(leaf.crcSpan[i], cut));
                return removed;
            }
        }
        while (tree.seekCeiling(start) && tree.cursorLeaf.start(tree.cursorIndex) < end) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long extentStart = leaf.start(i);
            long extentEnd = leaf.end(i);
            long location = leaf.location[i];
            int crc = leaf.crc[i];
            int span = leaf.crcSpan[i];
            tree.delete(extentStart);
            removed += tally.left(location, (int) (Math.min(extentEnd, end) - extentStart));
            if (extentEnd > end) {
                int cut = (int) (end - extentStart);
                tree.insert(end, (int) (extentEnd - end), ExtentLocation.shifted(location, cut), crc,
                        CrcSpan.shifted(span, cut));
                break;
            }
        }
        return removed;
    }
}

package io.blockcache.index;

import static io.blockcache.index.IndexChecks.check;
import static io.blockcache.index.IndexChecks.checkArgument;

import java.util.function.LongPredicate;

/**
 * The extent index of one backing volume: maps backing sector ranges to cache locations (bucket, offset,
 * generation, dirty bit) and the CRC32C of the data. Stored extents never overlap; a newer extent
 * replaces exactly the sectors it covers, so older extents are trimmed or split.
 *
 * <p><b>Units:</b> sectors of 512 bytes; backing offsets are {@code long}, lengths {@code int}, an extent
 * is 1..{@link #EXTENT_LENGTH_MAX_SECTORS} sectors (at most one bucket).
 *
 * <p><b>Checksums of cut pieces:</b> a piece left over after an overwrite keeps its extent's CRC and
 * remembers the original range it covers (see {@link CrcSpan}); visitors get that range, so a reader can
 * always verify by reading the original range. Trade-off: 4 bytes per extent and, for cut pieces only,
 * a wider cache read on verification, instead of pieces that can never be verified.
 *
 * <p><b>Stale keys:</b> keys whose generation no longer matches their bucket stay stored (and counted)
 * until overwritten, removed, or dropped by GC; lookups report them as holes.
 *
 * <p><b>Memory:</b> a B+tree ({@link ExtentTree}) with 28 bytes per extent in leaf arrays; see
 * docs/BENCHMARKS.md for measured bytes per extent.
 *
 * <p><b>Thread rule:</b> not thread-safe; owned by the cache's loop thread, which makes every call.
 */
public final class ExtentIndex {
    /** An extent is at most one bucket; buckets are at most 8 MiB (DESIGN.md §3). */
    public static final int EXTENT_LENGTH_MAX_SECTORS = 16384;
    /** Returned by scans when they reached the end of the index; the caller wraps to sector 0. */
    public static final long CURSOR_END = -1L;
    /** Leaf capacity: 128 extents (3.5 KiB of arrays), a compromise between split cost and fill slack. */
    public static final int LEAF_CAPACITY_DEFAULT = 128;
    /** Inner fan-out: 64 keeps the tree at 4 levels for 10^8 extents. */
    public static final int INNER_CAPACITY_DEFAULT = 64;

    private final ExtentTree tree;
    private final ExtentListener listener;
    private final boolean verifyEachOperation;
    private long cachedSectors;
    private long dirtySectors;

    /** An index with default node sizes, no listener and no expensive self-checks. */
    public ExtentIndex() {
        this(ExtentListener.NONE, false);
    }

    /**
     * @param listener told about sectors added, removed and cleaned, per bucket
     * @param verifyEachOperation run {@link #verify()} after every mutation (tests and the simulator)
     */
    public ExtentIndex(ExtentListener listener, boolean verifyEachOperation) {
        this(listener, verifyEachOperation, LEAF_CAPACITY_DEFAULT, INNER_CAPACITY_DEFAULT);
    }

    /** Tests use tiny nodes to exercise splits and merges; capacities must be at least 4. */
    ExtentIndex(ExtentListener listener, boolean verifyEachOperation, int leafCapacity, int innerCapacity) {
        this.tree = new ExtentTree(leafCapacity, innerCapacity);
        this.listener = listener;
        this.verifyEachOperation = verifyEachOperation;
    }

    /**
     * Maps {@code [startSector, startSector + lengthSectors)} to the given location, replacing whatever
     * was mapped there: overlapped extents are trimmed or split, the pieces keep their location (offset
     * shifted), generation, dirty bit and CRC.
     *
     * @param offsetInBucketSectors where the data starts in the bucket; it must end inside one bucket
     * @param generation the bucket's generation the data was written under (0..65535)
     * @param crc32c CRC32C of exactly the inserted sectors' data
     */
    public void insert(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                       int generation, boolean dirty, int crc32c) {
        insert(startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c, 0, lengthSectors);
    }

    /**
     * Like {@link #insert(long, int, int, int, int, boolean, int)} for a piece whose CRC covers a wider bucket
     * range: the range starts {@code crcCutHeadSectors} before the piece and is {@code crcLengthSectors} long
     * (a piece of a write that a newer write partly hid, or a cut piece restored by replay or a checkpoint).
     */
    public void insert(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                       int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors) {
        checkExtent(startSector, lengthSectors);
        checkArgument(offsetInBucketSectors + lengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "extent at offset %d + %d sectors leaves an 8 MiB bucket", offsetInBucketSectors, lengthSectors);
        checkArgument(crcCutHeadSectors >= 0 && crcCutHeadSectors <= offsetInBucketSectors
                        && crcCutHeadSectors + lengthSectors <= crcLengthSectors
                        && crcLengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "CRC span (cut head %d, length %d) does not contain the extent of %d sectors at offset %d",
                crcCutHeadSectors, crcLengthSectors, lengthSectors, offsetInBucketSectors);
        long location = ExtentLocation.pack(bucket, offsetInBucketSectors, generation, dirty);
        removeRange(startSector, startSector + lengthSectors);
        add(startSector, lengthSectors, location, crc32c, CrcSpan.pack(crcCutHeadSectors, crcLengthSectors));
        listener.onAdded(bucket, generation, lengthSectors, dirty);
        afterMutation();
    }

    /**
     * Unmaps {@code [startSector, startSector + lengthSectors)} (TRIM, bypass invalidation), dirty or not.
     *
     * @return sectors removed
     */
    public long remove(long startSector, int lengthSectors) {
        checkRange(startSector, lengthSectors);
        long removed = removeRange(startSector, startSector + lengthSectors);
        afterMutation();
        return removed;
    }

    /**
     * Visits the range in order, each piece clipped to it: cached pieces whose generation is current and
     * holes for everything else. Runs in O(log n + pieces).
     */
    public void lookup(long startSector, int lengthSectors, GenerationSource generations, LookupVisitor visitor) {
        checkRange(startSector, lengthSectors);
        long end = startSector + lengthSectors;
        long position = startSector;
        if (tree.seekFirstEndingAfter(startSector)) {
            do {
                LeafNode leaf = tree.cursorLeaf;
                int i = tree.cursorIndex;
                long pieceStart = leaf.start[i];
                if (pieceStart >= end) {
                    break;
                }
                long location = leaf.location[i];
                if (generations.currentGeneration(ExtentLocation.bucket(location))
                        != ExtentLocation.generation(location)) {
                    continue; // stale: the hole that covers it is reported with the next gap
                }
                long from = Math.max(pieceStart, startSector);
                long to = Math.min(leaf.end(i), end);
                if (from > position) {
                    visitor.hole(position, (int) (from - position));
                }
                visitPiece(leaf, i, from, to, visitor);
                position = to;
            } while (tree.advance());
        }
        if (position < end) {
            visitor.hole(position, (int) (end - position));
        }
    }

    private static void visitPiece(LeafNode leaf, int i, long from, long to, ExtentVisitor visitor) {
        long location = leaf.location[i];
        int span = leaf.crcSpan[i];
        int crcOffset = ExtentLocation.offsetInBucketSectors(location) - CrcSpan.cutHeadSectors(span);
        int into = (int) (from - leaf.start[i]);
        visitor.extent(from, (int) (to - from), into == 0 ? location : ExtentLocation.shifted(location, into),
                leaf.crc[i], crcOffset, CrcSpan.originalLengthSectors(span));
    }

    /**
     * Clears the dirty bit of every piece in the range that still holds exactly the data that writeback
     * wrote: same bucket and generation, and offset {@code offsetInBucketSectors + (pieceStart - startSector)}.
     * A piece overwritten since stays dirty; pieces reaching outside the range are split. Call only after
     * the backing store was flushed (DESIGN.md §4.4).
     *
     * @return sectors changed from dirty to clean
     */
    public long markClean(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                          int generation) {
        checkRange(startSector, lengthSectors);
        long expected = ExtentLocation.pack(bucket, offsetInBucketSectors, generation, true);
        long cleaned = rewriteMatching(startSector, lengthSectors, expected, true, 0L, 0, false);
        afterMutation();
        return cleaned;
    }

    /**
     * Moving GC: re-points every piece in the range that still lives at the old location (matched like
     * {@link #markClean}) to the new one, keeping its dirty bit. The new CRC covers the whole moved range
     * {@code [newOffsetInBucketSectors, + lengthSectors)}.
     *
     * @return sectors re-pointed
     */
    public long replaceIfUnchanged(long startSector, int lengthSectors, int oldBucket, int oldOffsetInBucketSectors,
                                   int oldGeneration, int newBucket, int newOffsetInBucketSectors,
                                   int newGeneration, int newCrc32c) {
        checkExtent(startSector, lengthSectors);
        checkArgument(newOffsetInBucketSectors + lengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "moved extent at offset %d + %d sectors leaves an 8 MiB bucket", newOffsetInBucketSectors,
                lengthSectors);
        long expected = ExtentLocation.pack(oldBucket, oldOffsetInBucketSectors, oldGeneration, false);
        long target = ExtentLocation.pack(newBucket, newOffsetInBucketSectors, newGeneration, false);
        long moved = rewriteMatching(startSector, lengthSectors, expected, false, target, newCrc32c, true);
        afterMutation();
        return moved;
    }

    /**
     * Shared walk of markClean and replaceIfUnchanged: each piece of the range whose location equals
     * {@code expected} shifted to the piece (dirty bit compared only when {@code matchDirty}) is rewritten,
     * either cleaned or moved to {@code target}.
     */
    private long rewriteMatching(long startSector, int lengthSectors, long expected, boolean matchDirty,
                                 long target, int targetCrc, boolean move) {
        long end = startSector + lengthSectors;
        long position = startSector;
        long changed = 0;
        while (position < end && tree.seekFirstEndingAfter(position)) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long pieceStart = leaf.start[i];
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
        long pieceStart = leaf.start[i];
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
            listener.onRemoved(ExtentLocation.bucket(location), ExtentLocation.generation(location), length, dirty);
            listener.onAdded(ExtentLocation.bucket(newLocation), ExtentLocation.generation(newLocation), length,
                    dirty);
        } else {
            newLocation = ExtentLocation.withDirty(ExtentLocation.shifted(location, (int) (from - pieceStart)), false);
            newCrc = crc;
            newSpan = CrcSpan.shifted(span, (int) (from - pieceStart));
            dirtySectors -= length;
            listener.onDirtyChanged(ExtentLocation.bucket(location), ExtentLocation.generation(location), length,
                    false);
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

    /** Unmaps {@code [start, end)}: trims, splits or deletes overlapped extents; returns sectors removed. */
    private long removeRange(long start, long end) {
        long removed = 0;
        if (tree.seekFloor(start) && tree.cursorLeaf.end(tree.cursorIndex) > start
                && tree.cursorLeaf.start[tree.cursorIndex] < start) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long extentStart = leaf.start[i];
            long extentEnd = leaf.end(i);
            long cutEnd = Math.min(extentEnd, end);
            leaf.length[i] = (int) (start - extentStart); // a tail trim keeps the start: order holds
            removed += sectorsLeft(leaf.location[i], (int) (cutEnd - start));
            if (extentEnd > end) {
                int cut = (int) (end - extentStart);
                tree.insert(end, (int) (extentEnd - end), ExtentLocation.shifted(leaf.location[i], cut),
                        leaf.crc[i], CrcSpan.shifted(leaf.crcSpan[i], cut));
                return removed;
            }
        }
        while (tree.seekCeiling(start) && tree.cursorLeaf.start[tree.cursorIndex] < end) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long extentStart = leaf.start[i];
            long extentEnd = leaf.end(i);
            long location = leaf.location[i];
            int crc = leaf.crc[i];
            int span = leaf.crcSpan[i];
            tree.delete(extentStart);
            removed += sectorsLeft(location, (int) (Math.min(extentEnd, end) - extentStart));
            if (extentEnd > end) {
                int cut = (int) (end - extentStart);
                tree.insert(end, (int) (extentEnd - end), ExtentLocation.shifted(location, cut), crc,
                        CrcSpan.shifted(span, cut));
                break;
            }
        }
        return removed;
    }

    /** Accounts for {@code lengthSectors} sectors at {@code location} leaving the index; returns the length. */
    private int sectorsLeft(long location, int lengthSectors) {
        boolean dirty = ExtentLocation.dirty(location);
        cachedSectors -= lengthSectors;
        if (dirty) {
            dirtySectors -= lengthSectors;
        }
        listener.onRemoved(ExtentLocation.bucket(location), ExtentLocation.generation(location), lengthSectors, dirty);
        return lengthSectors;
    }

    private void add(long start, int length, long location, int crc32c, int crcSpan) {
        tree.insert(start, length, location, crc32c, crcSpan);
        cachedSectors += length;
        if (ExtentLocation.dirty(location)) {
            dirtySectors += length;
        }
    }

    /**
     * Visits whole extents in order, starting with the first that ends after {@code fromSector}, that
     * pass {@code filter} (a predicate on the packed location, e.g. {@code ExtentLocation::dirty}). Stops
     * after {@code maxVisited} visits or {@code maxExamined} extents looked at, whichever comes first, so
     * a slice does bounded work even when few extents pass the filter.
     *
     * @return the sector to resume from (the end of the last examined extent), or {@link #CURSOR_END}
     */
    public long scan(long fromSector, LongPredicate filter, int maxVisited, int maxExamined, ExtentVisitor visitor) {
        checkArgument(fromSector >= 0 && maxVisited > 0 && maxExamined > 0,
                "scan from %d, %d visits, %d examined", fromSector, maxVisited, maxExamined);
        if (!tree.seekFirstEndingAfter(fromSector)) {
            return CURSOR_END;
        }
        int visited = 0;
        int examined = 0;
        while (true) {
            LeafNode leaf = tree.cursorLeaf;
            int i = tree.cursorIndex;
            long extentEnd = leaf.end(i);
            examined++;
            if (filter.test(leaf.location[i])) {
                visitPiece(leaf, i, leaf.start[i], extentEnd, visitor);
                visited++;
            }
            if (!tree.advance()) {
                return CURSOR_END;
            }
            if (visited == maxVisited || examined == maxExamined) {
                return extentEnd;
            }
        }
    }

    /**
     * Visits every extent of {@code nodes} leaves (GC slices count in nodes, DESIGN.md §7), starting with
     * the first extent that starts at or after {@code fromSector}, whose leaf counts as the first node.
     * Without mutations in between, successive calls from the returned cursor visit each extent once.
     *
     * @return the start of the first extent not visited, or {@link #CURSOR_END}
     */
    public long forEachInNodes(long fromSector, int nodes, ExtentVisitor visitor) {
        checkArgument(fromSector >= 0 && nodes > 0, "node slice from %d of %d nodes", fromSector, nodes);
        if (!tree.seekCeiling(fromSector)) {
            return CURSOR_END;
        }
        LeafNode leaf = tree.cursorLeaf;
        int i = tree.cursorIndex;
        for (int node = 0; node < nodes && leaf != null; node++) {
            for (; i < leaf.count; i++) {
                visitPiece(leaf, i, leaf.start[i], leaf.end(i), visitor);
            }
            leaf = leaf.next;
            i = 0;
        }
        return leaf == null ? CURSOR_END : leaf.start[0];
    }

    /**
     * GC mark helper: removes the stale keys (generation no longer current) among the extents of
     * {@code nodes} leaves from {@code fromSector}, the same slice {@link #forEachInNodes} would visit.
     * Removal is reported to the listener with the stale generation.
     *
     * @return the cursor for the next slice, or {@link #CURSOR_END}
     */
    public long dropStaleInNodes(long fromSector, int nodes, GenerationSource generations) {
        checkArgument(fromSector >= 0 && nodes > 0, "node slice from %d of %d nodes", fromSector, nodes);
        if (!tree.seekCeiling(fromSector)) {
            return CURSOR_END;
        }
        // Collect first, delete after: deletions rebalance leaves and would move the walk under our feet.
        long[] staleStarts = new long[Math.min(nodes, tree.leafCount) * tree.leafCapacity];
        int stale = 0;
        LeafNode leaf = tree.cursorLeaf;
        int i = tree.cursorIndex;
        for (int node = 0; node < nodes && leaf != null; node++) {
            for (; i < leaf.count; i++) {
                long location = leaf.location[i];
                if (generations.currentGeneration(ExtentLocation.bucket(location))
                        != ExtentLocation.generation(location)) {
                    staleStarts[stale++] = leaf.start[i];
                }
            }
            leaf = leaf.next;
            i = 0;
        }
        long cursor = leaf == null ? CURSOR_END : leaf.start[0];
        for (int k = 0; k < stale; k++) {
            tree.seekFloor(staleStarts[k]);
            LeafNode at = tree.cursorLeaf;
            int j = tree.cursorIndex;
            check(at != null && at.start[j] == staleStarts[k], "stale extent at %d vanished", staleStarts[k]);
            long location = at.location[j];
            int length = at.length[j];
            tree.delete(staleStarts[k]);
            sectorsLeft(location, length);
        }
        afterMutation();
        return cursor;
    }

    /** Number of stored extents, stale ones included. */
    public int extentCount() {
        return tree.size;
    }

    /** Sectors mapped by stored extents, stale ones included. */
    public long cachedSectors() {
        return cachedSectors;
    }

    /** Sectors mapped by dirty extents, stale ones included (dirty data is never made stale by design). */
    public long dirtySectors() {
        return dirtySectors;
    }

    /** Number of leaves, the unit of {@link #forEachInNodes}. */
    public int nodeCount() {
        return tree.leafCount;
    }

    /**
     * Checks the whole structure: tree shape and separators, leaf links, extents sorted, non-overlapping
     * and within their limits, and the counters. O(n); throws {@link IllegalStateException} on a violation.
     */
    public void verify() {
        new TreeVerifier(tree).verify(cachedSectors, dirtySectors);
    }

    private void afterMutation() {
        if (verifyEachOperation) {
            verify();
        }
    }

    private static void checkRange(long startSector, int lengthSectors) {
        checkArgument(startSector >= 0 && lengthSectors > 0 && startSector <= Long.MAX_VALUE - lengthSectors,
                "range [%d, +%d) outside [0, 2^63)", startSector, lengthSectors);
    }

    private static void checkExtent(long startSector, int lengthSectors) {
        checkRange(startSector, lengthSectors);
        checkArgument(lengthSectors <= EXTENT_LENGTH_MAX_SECTORS, "extent of %d sectors is longer than a bucket",
                lengthSectors);
    }
}

package io.blockcache.index;

import static io.blockcache.loop.Checks.require;

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
 * <p><b>Memory:</b> a B+tree ({@link ExtentTree}) with 24 bytes per extent in leaf arrays; see
 * docs/BENCHMARKS.md for measured bytes per extent.
 *
 * <p><b>Thread rule:</b> not thread-safe; owned by the cache's loop thread, which makes every call.
 */
public final class ExtentIndex {
    /** An extent is at most one bucket; buckets are at most 8 MiB (docs/FORMAT.md §2). */
    public static final int EXTENT_LENGTH_MAX_SECTORS = 16384;
    /**
     * Every stored extent ends at or below this sector (2^47 sectors = 64 PiB): a leaf packs start and length
     * into one {@code long} (see {@link LeafNode}). Volumes are refused above it ({@code VolumeConfig}).
     */
    public static final long SECTOR_LIMIT = 1L << 47;
    /** Returned by scans when they reached the end of the index; the caller wraps to sector 0. */
    public static final long CURSOR_END = -1L;
    /** Leaf capacity: 128 extents (3.5 KiB of arrays), a compromise between split cost and fill slack. */
    public static final int LEAF_CAPACITY_DEFAULT = 128;
    /** Inner fan-out: 64 keeps the tree at 4 levels for 10^8 extents. */
    public static final int INNER_CAPACITY_DEFAULT = 64;

    private final ExtentTree tree;
    private final SectorTally tally;
    private final RangeCutter cutter;
    private final MatchingRewrite rewrite;
    private final StaleSweep staleSweep;
    private final boolean verifyEachOperation;

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
        this.tally = new SectorTally(listener);
        this.cutter = new RangeCutter(tree, tally);
        this.rewrite = new MatchingRewrite(tree, tally);
        this.staleSweep = new StaleSweep(tree, tally);
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
        require(offsetInBucketSectors + lengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "extent at offset %d + %d sectors leaves an 8 MiB bucket", offsetInBucketSectors, lengthSectors);
        require(crcCutHeadSectors >= 0 && crcCutHeadSectors <= offsetInBucketSectors
                        && crcCutHeadSectors + lengthSectors <= crcLengthSectors
                        && crcLengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "CRC span (cut head %d, length %d) does not contain the extent of %d sectors at offset %d",
                crcCutHeadSectors, crcLengthSectors, lengthSectors, offsetInBucketSectors);
        long location = ExtentLocation.pack(bucket, offsetInBucketSectors, generation, dirty);
        int span = CrcSpan.pack(crcCutHeadSectors, crcLengthSectors);
        if (!replaceExactly(startSector, lengthSectors, location, crc32c, span)) {
            cutter.cut(startSector, startSector + lengthSectors);
            tree.insert(startSector, lengthSectors, location, crc32c, span);
        }
        tally.added(location, lengthSectors);
        afterMutation();
    }

    /**
     * The common overwrite: a stored extent (current or stale) covers exactly the new one's range, as when a
     * client rewrites the same 4 KiB block. Its entry takes the new location and CRC in place: one descent
     * instead of the cut's seeks, delete and re-insert (the index was about a third of the loop thread's samples
     * under 4 KiB random writes). The start, and so the tree's order and keys, stay as they are.
     *
     * @return false, changing nothing, if no extent has exactly this range
     */
    private boolean replaceExactly(long startSector, int lengthSectors, long location, int crc32c, int span) {
        if (!tree.seekFloor(startSector)) {
            return false;
        }
        LeafNode leaf = tree.cursorLeaf;
        int i = tree.cursorIndex;
        if (leaf.start(i) != startSector || leaf.length(i) != lengthSectors) {
            return false;
        }
        tally.left(leaf.location[i], lengthSectors);
        leaf.location[i] = location;
        leaf.crc[i] = crc32c;
        leaf.crcSpan[i] = span;
        return true;
    }

    /**
     * Unmaps {@code [startSector, startSector + lengthSectors)} (TRIM, bypass invalidation), dirty or not.
     *
     * @return sectors removed
     */
    public long remove(long startSector, int lengthSectors) {
        checkRange(startSector, lengthSectors);
        long removed = cutter.cut(startSector, startSector + lengthSectors);
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
                long pieceStart = leaf.start(i);
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
        int into = (int) (from - leaf.start(i));
        visitor.extent(from, (int) (to - from), into == 0 ? location : ExtentLocation.shifted(location, into),
                leaf.crc[i], crcOffset, CrcSpan.originalLengthSectors(span));
    }

    /**
     * Clears the dirty bit of every piece in the range that still holds exactly the data that writeback
     * wrote: same bucket and generation, and offset {@code offsetInBucketSectors + (pieceStart - startSector)}.
     * A piece overwritten since stays dirty; pieces reaching outside the range are split. Call only after
     * the backing store was flushed (docs/ARCHITECTURE.md §5 item 4).
     *
     * @return sectors changed from dirty to clean
     */
    public long markClean(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                          int generation) {
        checkRange(startSector, lengthSectors);
        long expected = ExtentLocation.pack(bucket, offsetInBucketSectors, generation, true);
        long cleaned = rewrite.rewrite(startSector, lengthSectors, expected, true, 0L, 0, false);
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
        require(newOffsetInBucketSectors + lengthSectors <= EXTENT_LENGTH_MAX_SECTORS,
                "moved extent at offset %d + %d sectors leaves an 8 MiB bucket", newOffsetInBucketSectors,
                lengthSectors);
        long expected = ExtentLocation.pack(oldBucket, oldOffsetInBucketSectors, oldGeneration, false);
        long target = ExtentLocation.pack(newBucket, newOffsetInBucketSectors, newGeneration, false);
        long moved = rewrite.rewrite(startSector, lengthSectors, expected, false, target, newCrc32c, true);
        afterMutation();
        return moved;
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
        require(fromSector >= 0 && maxVisited > 0 && maxExamined > 0,
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
                visitPiece(leaf, i, leaf.start(i), extentEnd, visitor);
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
     * Visits every extent of {@code nodes} leaves (GC slices count in nodes, docs/GC.md), starting with
     * the first extent that starts at or after {@code fromSector}, whose leaf counts as the first node.
     * Without mutations in between, successive calls from the returned cursor visit each extent once.
     *
     * @return the start of the first extent not visited, or {@link #CURSOR_END}
     */
    public long forEachInNodes(long fromSector, int nodes, ExtentVisitor visitor) {
        require(fromSector >= 0 && nodes > 0, "node slice from %d of %d nodes", fromSector, nodes);
        if (!tree.seekCeiling(fromSector)) {
            return CURSOR_END;
        }
        LeafNode leaf = tree.cursorLeaf;
        int i = tree.cursorIndex;
        for (int node = 0; node < nodes && leaf != null; node++) {
            for (; i < leaf.count; i++) {
                visitPiece(leaf, i, leaf.start(i), leaf.end(i), visitor);
            }
            leaf = leaf.next;
            i = 0;
        }
        return leaf == null ? CURSOR_END : leaf.start(0);
    }

    /**
     * GC mark helper: removes the stale keys (generation no longer current) among the extents of
     * {@code nodes} leaves from {@code fromSector}, the same slice {@link #forEachInNodes} would visit.
     * Removal is reported to the listener with the stale generation.
     *
     * @return the cursor for the next slice, or {@link #CURSOR_END}
     */
    public long dropStaleInNodes(long fromSector, int nodes, GenerationSource generations) {
        require(fromSector >= 0 && nodes > 0, "node slice from %d of %d nodes", fromSector, nodes);
        long cursor = staleSweep.sweep(fromSector, nodes, generations);
        afterMutation();
        return cursor;
    }

    /** Number of stored extents, stale ones included. */
    public int extentCount() {
        return tree.size;
    }

    /** Sectors mapped by stored extents, stale ones included. */
    public long cachedSectors() {
        return tally.cachedSectors();
    }

    /** Sectors mapped by dirty extents, stale ones included (dirty data is never made stale by design). */
    public long dirtySectors() {
        return tally.dirtySectors();
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
        new TreeVerifier(tree).verify(tally.cachedSectors(), tally.dirtySectors());
    }

    private void afterMutation() {
        if (verifyEachOperation) {
            verify();
        }
    }

    private static void checkRange(long startSector, int lengthSectors) {
        require(startSector >= 0 && lengthSectors > 0 && startSector <= Long.MAX_VALUE - lengthSectors,
                "range [%d, +%d) outside [0, 2^63)", startSector, lengthSectors);
    }

    private static void checkExtent(long startSector, int lengthSectors) {
        checkRange(startSector, lengthSectors);
        require(lengthSectors <= EXTENT_LENGTH_MAX_SECTORS, "extent of %d sectors is longer than a bucket",
                lengthSectors);
        require(startSector + lengthSectors <= SECTOR_LIMIT, "extent [%d, +%d) ends beyond the index's 2^47 sectors",
                startSector, lengthSectors);
    }
}

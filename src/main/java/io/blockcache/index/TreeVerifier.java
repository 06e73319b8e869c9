package io.blockcache.index;

import static io.blockcache.loop.Checks.check;

/**
 * The expensive whole-structure check behind {@link ExtentIndex#verify()}: tree shape, separator bounds,
 * leaf links, extent order and limits, and counters. Recursion follows the tree height, which is bounded
 * by {@link ExtentTree#HEIGHT_MAX}.
 */
final class TreeVerifier {
    private final ExtentTree tree;
    private LeafNode expectedNextLeaf;
    private LeafNode previousLeaf;
    private long previousEnd = Long.MIN_VALUE;
    private int extents;
    private int leaves;
    private long cachedSectors;
    private long dirtySectors;

    TreeVerifier(ExtentTree tree) {
        this.tree = tree;
    }

    void verify(long cachedSectorsExpected, long dirtySectorsExpected) {
        expectedNextLeaf = tree.firstLeaf;
        check(tree.firstLeaf.prev == null, "first leaf has a predecessor");
        visit(tree.root, 0, Long.MIN_VALUE, Long.MAX_VALUE);
        check(expectedNextLeaf == null, "leaf chain continues past the last leaf of the tree");
        check(extents == tree.size, "tree holds %d extents, size says %d", extents, tree.size);
        check(leaves == tree.leafCount, "tree holds %d leaves, count says %d", leaves, tree.leafCount);
        check(cachedSectors == cachedSectorsExpected, "extents cover %d sectors, counter says %d", cachedSectors,
                cachedSectorsExpected);
        check(dirtySectors == dirtySectorsExpected, "dirty extents cover %d sectors, counter says %d", dirtySectors,
                dirtySectorsExpected);
    }

    /** Checks the subtree whose extents must start in {@code [lowerBound, upperBound)}. */
    private void visit(Object node, int level, long lowerBound, long upperBound) {
        if (level == tree.height) {
            check(node instanceof LeafNode, "level %d of %d is not a leaf", level, tree.height);
            verifyLeaf((LeafNode) node, lowerBound, upperBound);
            return;
        }
        InnerNode inner = (InnerNode) node;
        int minimum = level == 0 ? 2 : tree.innerCapacity / 2;
        check(inner.count >= minimum && inner.count <= tree.innerCapacity, "inner node at level %d has %d children",
                level, inner.count);
        for (int i = 0; i < inner.count; i++) {
            long lower = i == 0 ? lowerBound : inner.keys[i];
            long upper = i + 1 < inner.count ? inner.keys[i + 1] : upperBound;
            check(lower < upper || (i == 0 && lower <= upper), "separators out of order at level %d: %d >= %d",
                    level, lower, upper);
            visit(inner.children[i], level + 1, lower, upper);
        }
    }

    private void verifyLeaf(LeafNode leaf, long lowerBound, long upperBound) {
        check(leaf == expectedNextLeaf, "leaf chain skips or repeats a leaf");
        check(leaf.prev == previousLeaf, "leaf's backward link is wrong");
        check(leaf.count > 0 || tree.height == 0, "empty non-root leaf");
        for (int i = 0; i < leaf.count; i++) {
            long start = leaf.start(i);
            int length = leaf.length(i);
            long location = leaf.location[i];
            int span = leaf.crcSpan[i];
            check(start >= lowerBound && start < upperBound, "extent at %d outside its node's [%d, %d)", start,
                    lowerBound, upperBound);
            check(start >= 0 && start >= previousEnd, "extent at %d overlaps or precedes the one ending at %d", start,
                    previousEnd);
            check(length > 0 && length <= ExtentIndex.EXTENT_LENGTH_MAX_SECTORS, "extent at %d has length %d", start,
                    length);
            int cutHead = CrcSpan.cutHeadSectors(span);
            int originalLength = CrcSpan.originalLengthSectors(span);
            int crcOffset = ExtentLocation.offsetInBucketSectors(location) - cutHead;
            check(cutHead + length <= originalLength && crcOffset >= 0
                            && crcOffset + originalLength <= ExtentIndex.EXTENT_LENGTH_MAX_SECTORS,
                    "extent at %d: CRC span (cut %d, length %d) does not contain the extent at %s", start, cutHead,
                    originalLength, ExtentLocation.toString(location));
            previousEnd = start + length;
            cachedSectors += length;
            if (ExtentLocation.dirty(location)) {
                dirtySectors += length;
            }
        }
        extents += leaf.count;
        leaves++;
        previousLeaf = leaf;
        expectedNextLeaf = leaf.next;
    }
}

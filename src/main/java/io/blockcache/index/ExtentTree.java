package io.blockcache.index;

import static io.blockcache.loop.Checks.check;
import static io.blockcache.loop.Checks.require;

import java.util.Arrays;

/**
 * A B+tree of non-overlapping extents keyed by start sector, with primitive arrays in its leaves. It knows
 * nothing about overlaps: {@link ExtentIndex} keeps extents disjoint and uses this as a sorted map.
 *
 * <p>Deletion merges or rebalances underfull nodes (below half full) so memory per extent stays bounded.
 * A full leaf first shifts entries into a sibling with room and splits only when its siblings are full; a leaf
 * that overflows by an append at its end keeps 7/8 of its entries, so sequential filling leaves leaves nearly
 * full instead of half full. Depth is bounded by {@link #HEIGHT_MAX}; descents use an
 * explicit path, no recursion. Owner thread only.
 */
final class ExtentTree {
    /** Enough for 2^31 extents even at the minimum fan-out of 4 that the constructor allows. */
    static final int HEIGHT_MAX = 32;

    final int leafCapacity;
    final int innerCapacity;
    Object root;
    /** Number of inner levels above the leaves; 0 when the root is a leaf. */
    int height;
    int size;
    LeafNode firstLeaf;
    int leafCount = 1;

    private final InnerNode[] pathNode = new InnerNode[HEIGHT_MAX];
    private final int[] pathIndex = new int[HEIGHT_MAX];

    /** Cursor set by the seek and advance methods: the entry {@code cursorIndex} of {@code cursorLeaf}. */
    LeafNode cursorLeaf;
    int cursorIndex;

    ExtentTree(int leafCapacity, int innerCapacity) {
        require(leafCapacity >= 4 && innerCapacity >= 4,
                "node capacities %d/%d below 4", leafCapacity, innerCapacity);
        this.leafCapacity = leafCapacity;
        this.innerCapacity = innerCapacity;
        this.firstLeaf = new LeafNode(leafCapacity);
        this.root = firstLeaf;
    }

    /** Walks from the root to the leaf whose key range contains {@code key}, recording the path. */
    private LeafNode descend(long key) {
        Object node = root;
        for (int level = 0; level < height; level++) {
            InnerNode inner = (InnerNode) node;
            int child = inner.childIndex(key);
            pathNode[level] = inner;
            pathIndex[level] = child;
            node = inner.children[child];
        }
        return (LeafNode) node;
    }

    /** Points the cursor at the last extent starting at or before {@code key}; false (cursor null) if none. */
    boolean seekFloor(long key) {
        LeafNode leaf = descend(key);
        int i = leaf.floorIndex(key);
        if (i >= 0) {
            return setCursor(leaf, i);
        }
        // Every non-root leaf is non-empty, so the previous leaf's last extent is the floor.
        LeafNode prev = leaf.prev;
        return prev == null ? setCursor(null, 0) : setCursor(prev, prev.count - 1);
    }

    /** Points the cursor at the first extent that ends after {@code sector}; false if none. */
    boolean seekFirstEndingAfter(long sector) {
        if (seekFloor(sector)) {
            return cursorLeaf.end(cursorIndex) > sector || advance();
        }
        return size > 0 && setCursor(firstLeaf, 0);
    }

    /** Points the cursor at the first extent that starts at or after {@code sector}; false if none. */
    boolean seekCeiling(long sector) {
        if (seekFloor(sector)) {
            return cursorLeaf.start(cursorIndex) == sector || advance();
        }
        return size > 0 && setCursor(firstLeaf, 0);
    }

    /** Moves the cursor to the next extent in order; false (cursor null) at the end. */
    boolean advance() {
        int next = cursorIndex + 1;
        if (next < cursorLeaf.count) {
            cursorIndex = next;
            return true;
        }
        return setCursor(cursorLeaf.next, 0);
    }

    private boolean setCursor(LeafNode leaf, int index) {
        cursorLeaf = leaf;
        cursorIndex = index;
        return leaf != null;
    }

    /** Inserts an extent; the caller guarantees that no stored extent overlaps it. Invalidates the cursor. */
    void insert(long start, int length, long location, int crc32c, int crcSpan) {
        LeafNode leaf = descend(start);
        int i = leaf.floorIndex(start) + 1;
        if (leaf.count < leafCapacity) {
            leaf.insertAt(i, start, length, location, crc32c, crcSpan);
        } else if (!insertViaSibling(leaf, i, start, length, location, crc32c, crcSpan)) {
            splitAndInsert(leaf, i, start, length, location, crc32c, crcSpan);
        }
        size++;
        cursorLeaf = null;
    }

    /**
     * A full leaf first hands entries to a sibling under the same parent that has room (as a B*-tree does), and
     * splits only when both neighbours are full: random inserts then leave leaves ≈ 80 % full instead of the
     * ≈ 69 % (ln 2) of split-at-half, which is what keeps the index under 32 bytes per extent
     * (docs/BENCHMARKS.md "Memory per extent"). Half the sibling's room is handed over, so the next few inserts
     * into this leaf do not shift again; an insert at either end of the run of entries that would move stays put
     * (it would only change which side of the separator it lands on).
     *
     * @return false if no sibling had room (nothing changed)
     */
    private boolean insertViaSibling(LeafNode leaf, int i, long start, int length, long location, int crc32c,
                                     int crcSpan) {
        if (height == 0) {
            return false;
        }
        InnerNode parent = pathNode[height - 1];
        int child = pathIndex[height - 1];
        if (child > 0 && ((LeafNode) parent.children[child - 1]).count < leafCapacity && i > 0) {
            LeafNode left = (LeafNode) parent.children[child - 1];
            int moved = Math.min(i, (leafCapacity - left.count + 1) / 2);
            LeafNode.copy(leaf, 0, left, left.count, moved);
            left.count += moved;
            LeafNode.copy(leaf, moved, leaf, 0, leaf.count - moved);
            leaf.count -= moved;
            leaf.insertAt(i - moved, start, length, location, crc32c, crcSpan);
            parent.keys[child] = leaf.start(0);
            return true;
        }
        if (child + 1 < parent.count && ((LeafNode) parent.children[child + 1]).count < leafCapacity
                && i < leafCapacity) {
            LeafNode right = (LeafNode) parent.children[child + 1];
            int moved = Math.min(leafCapacity - i, (leafCapacity - right.count + 1) / 2);
            LeafNode.copy(right, 0, right, moved, right.count);
            LeafNode.copy(leaf, leaf.count - moved, right, 0, moved);
            right.count += moved;
            leaf.count -= moved;
            leaf.insertAt(i, start, length, location, crc32c, crcSpan);
            parent.keys[child + 1] = right.start(0);
            return true;
        }
        return false;
    }

    private void splitAndInsert(LeafNode leaf, int i, long start, int length, long location, int crc32c,
                                int crcSpan) {
        int split = i == leafCapacity ? leafCapacity - leafCapacity / 8 : leafCapacity / 2;
        LeafNode right = new LeafNode(leafCapacity);
        LeafNode.copy(leaf, split, right, 0, leafCapacity - split);
        right.count = leafCapacity - split;
        leaf.count = split;
        right.next = leaf.next;
        right.prev = leaf;
        if (leaf.next != null) {
            leaf.next.prev = right;
        }
        leaf.next = right;
        leafCount++;
        if (i >= split) {
            right.insertAt(i - split, start, length, location, crc32c, crcSpan);
        } else {
            leaf.insertAt(i, start, length, location, crc32c, crcSpan);
        }
        insertSeparator(right.start(0), right);
    }

    /** Adds {@code child} after the path's node at the lowest inner level, splitting upwards as needed. */
    private void insertSeparator(long key, Object child) {
        long separator = key;
        Object newChild = child;
        for (int level = height - 1; level >= 0; level--) {
            InnerNode parent = pathNode[level];
            int position = pathIndex[level] + 1;
            if (parent.count < innerCapacity) {
                parent.insertChild(position, separator, newChild);
                return;
            }
            int split = innerCapacity / 2;
            InnerNode right = new InnerNode(innerCapacity);
            InnerNode.copy(parent, split, right, 0, innerCapacity - split);
            right.count = innerCapacity - split;
            parent.count = split;
            Arrays.fill(parent.children, split, innerCapacity, null);
            if (position >= split) {
                right.insertChild(position - split, separator, newChild);
            } else {
                parent.insertChild(position, separator, newChild);
            }
            separator = right.keys[0]; // the lower bound of the new right node moves up
            newChild = right;
        }
        check(height + 1 < HEIGHT_MAX, "tree height %d reached its bound", height + 1);
        InnerNode newRoot = new InnerNode(innerCapacity);
        newRoot.children[0] = root;
        newRoot.children[1] = newChild;
        newRoot.keys[1] = separator;
        newRoot.count = 2;
        root = newRoot;
        height++;
    }

    /** Deletes the extent that starts exactly at {@code start}. Invalidates the cursor. */
    void delete(long start) {
        LeafNode leaf = descend(start);
        int i = leaf.floorIndex(start);
        check(i >= 0 && leaf.start(i) == start, "no extent starts at sector %d", start);
        leaf.removeAt(i);
        size--;
        cursorLeaf = null;
        if (height > 0 && leaf.count < leafCapacity / 2) {
            rebalanceLeaf(leaf);
        }
    }

    private void rebalanceLeaf(LeafNode leaf) {
        InnerNode parent = pathNode[height - 1];
        int child = pathIndex[height - 1];
        int separatorIndex = child > 0 ? child : 1;
        LeafNode left = (LeafNode) parent.children[separatorIndex - 1];
        LeafNode right = (LeafNode) parent.children[separatorIndex];
        if (left.count + right.count <= leafCapacity) {
            LeafNode.copy(right, 0, left, left.count, right.count);
            left.count += right.count;
            left.next = right.next;
            if (right.next != null) {
                right.next.prev = left;
            }
            leafCount--;
            parent.removeChild(separatorIndex);
            rebalanceInner(height - 1);
            return;
        }
        int leftTarget = (left.count + right.count) / 2;
        if (left.count > leftTarget) {
            int moved = left.count - leftTarget;
            LeafNode.copy(right, 0, right, moved, right.count);
            LeafNode.copy(left, leftTarget, right, 0, moved);
            left.count -= moved;
            right.count += moved;
        } else {
            int moved = leftTarget - left.count;
            LeafNode.copy(right, 0, left, left.count, moved);
            LeafNode.copy(right, moved, right, 0, right.count - moved);
            left.count += moved;
            right.count -= moved;
        }
        parent.keys[separatorIndex] = right.start(0);
    }

    /** Fixes underfull inner nodes from {@code level} upwards after a child was removed there. */
    private void rebalanceInner(int startLevel) {
        for (int level = startLevel; level >= 0; level--) {
            InnerNode node = pathNode[level];
            if (level == 0) {
                if (node.count == 1) {
                    root = node.children[0];
                    height--;
                }
                return;
            }
            if (node.count >= innerCapacity / 2) {
                return;
            }
            InnerNode parent = pathNode[level - 1];
            int child = pathIndex[level - 1];
            int separatorIndex = child > 0 ? child : 1;
            InnerNode left = (InnerNode) parent.children[separatorIndex - 1];
            InnerNode right = (InnerNode) parent.children[separatorIndex];
            // The parent's separator becomes the key of the right node's first child while they are joined.
            right.keys[0] = parent.keys[separatorIndex];
            if (left.count + right.count <= innerCapacity) {
                InnerNode.copy(right, 0, left, left.count, right.count);
                left.count += right.count;
                parent.removeChild(separatorIndex);
                continue;
            }
            int leftTarget = (left.count + right.count) / 2;
            if (left.count > leftTarget) {
                int moved = left.count - leftTarget;
                InnerNode.copy(right, 0, right, moved, right.count);
                InnerNode.copy(left, leftTarget, right, 0, moved);
                Arrays.fill(left.children, leftTarget, left.count, null);
                left.count = leftTarget;
                right.count += moved;
            } else {
                int moved = leftTarget - left.count;
                InnerNode.copy(right, 0, left, left.count, moved);
                InnerNode.copy(right, moved, right, 0, right.count - moved);
                Arrays.fill(right.children, right.count - moved, right.count, null);
                left.count += moved;
                right.count -= moved;
            }
            parent.keys[separatorIndex] = right.keys[0];
            return;
        }
    }
}

package io.blockcache.index;

/**
 * A B+tree inner node: {@code count} children, where child {@code i > 0} holds only extents whose start is
 * {@code >= keys[i]} and every child before it only extents that start before {@code keys[i]}.
 * {@code keys[0]} is unused (the lower bound comes from the parent).
 */
final class InnerNode {
    final long[] keys;
    final Object[] children;
    int count;

    InnerNode(int capacity) {
        keys = new long[capacity];
        children = new Object[capacity];
    }

    /** Index of the child whose key range contains {@code key}. */
    int childIndex(long key) {
        int low = 1;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (keys[mid] <= key) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return high < 1 ? 0 : high;
    }

    void insertChild(int i, long key, Object child) {
        copy(this, i, this, i + 1, count - i);
        keys[i] = key;
        children[i] = child;
        count++;
    }

    void removeChild(int i) {
        copy(this, i + 1, this, i, count - i - 1);
        count--;
        children[count] = null; // let the removed node be collected
    }

    static void copy(InnerNode src, int srcPos, InnerNode dst, int dstPos, int n) {
        System.arraycopy(src.keys, srcPos, dst.keys, dstPos, n);
        System.arraycopy(src.children, srcPos, dst.children, dstPos, n);
    }
}

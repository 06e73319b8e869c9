package io.blockcache.bench.policy;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * An ordered set of blocks, oldest first: the list behind ARC's, 2Q's and S3-FIFO's queues and ghosts.
 * {@link #touch} moves a block to the newest end. Thread rule: one thread.
 */
final class LruList {
    private final LinkedHashSet<Long> blocks = new LinkedHashSet<>();

    boolean contains(long block) {
        return blocks.contains(block);
    }

    int size() {
        return blocks.size();
    }

    /** Adds {@code block} at the newest end (it must not be in the list). */
    void addNewest(long block) {
        blocks.add(block);
    }

    /** Moves a block that is in the list to the newest end. */
    void touch(long block) {
        blocks.remove(block);
        blocks.add(block);
    }

    boolean remove(long block) {
        return blocks.remove(block);
    }

    /** The oldest block (the list must not be empty). */
    long peekOldest() {
        return blocks.iterator().next();
    }

    /** Removes and returns the oldest block (the list must not be empty). */
    long removeOldest() {
        Iterator<Long> it = blocks.iterator();
        long oldest = it.next();
        it.remove();
        return oldest;
    }
}

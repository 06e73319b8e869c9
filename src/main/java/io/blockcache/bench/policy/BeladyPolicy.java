package io.blockcache.bench.policy;

import java.util.HashMap;
import java.util.TreeMap;

/**
 * Belady's optimum (MIN) with bypass, the ceiling no policy can beat: knowing the whole stream, a miss evicts the
 * cached block used again farthest in the future, or is not admitted at all if it is itself used again later than
 * every cached block (a cache that may decline fills, as the engine's admission may, is bounded by this form).
 * It must be fed exactly the stream it was built with, in order. O(log capacity) per reference.
 * Thread rule: one thread.
 */
public final class BeladyPolicy implements CachePolicy {
    private final long[] stream;
    private final long[] nextUse;
    private final int capacityBlocks;
    /** Cached blocks by their next use (a position in the stream, or past its end for "never": unique). */
    private final TreeMap<Long, Long> byNextUse = new TreeMap<>();
    private final HashMap<Long, Long> nextUseOf = new HashMap<>();
    private int position;

    /** The optimum for {@code stream} (block numbers, in order) on a cache of {@code capacityBlocks} blocks. */
    public BeladyPolicy(long[] stream, int capacityBlocks) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
        this.stream = stream.clone();
        this.nextUse = nextUses(this.stream);
    }

    /** For each position, the next position of the same block, or {@code length + position} if none (unique). */
    static long[] nextUses(long[] stream) {
        long[] next = new long[stream.length];
        HashMap<Long, Integer> seen = new HashMap<>();
        for (int i = stream.length - 1; i >= 0; i--) {
            Integer later = seen.put(stream[i], i);
            next[i] = later != null ? later : (long) stream.length + i;
        }
        return next;
    }

    @Override
    public boolean reference(long block) {
        if (position >= stream.length || stream[position] != block) {
            throw new IllegalStateException("Belady's policy fed another stream at position " + position);
        }
        long next = nextUse[position++];
        Long current = nextUseOf.get(block);
        if (current != null) {
            byNextUse.remove(current);
            byNextUse.put(next, block);
            nextUseOf.put(block, next);
            return true;
        }
        if (next >= stream.length) {
            return false; // never used again: caching it cannot help
        }
        if (byNextUse.size() >= capacityBlocks) {
            long farthest = byNextUse.lastKey();
            if (farthest < next) {
                return false; // bypass: every cached block is needed sooner
            }
            nextUseOf.remove(byNextUse.remove(farthest));
        }
        byNextUse.put(next, block);
        nextUseOf.put(block, next);
        return false;
    }

    @Override
    public String name() {
        return "Belady";
    }
}

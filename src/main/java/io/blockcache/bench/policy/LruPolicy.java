package io.blockcache.bench.policy;

import java.util.LinkedHashMap;

/** Least recently used: a hit moves the block to the front, a miss evicts the back. Thread rule: one thread. */
public final class LruPolicy implements CachePolicy {
    private final int capacityBlocks;
    private final LinkedHashMap<Long, Boolean> order = new LinkedHashMap<>(16, 0.75f, true);

    /** An LRU cache of {@code capacityBlocks} (at least 1) blocks. */
    public LruPolicy(int capacityBlocks) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
    }

    @Override
    public boolean reference(long block) {
        if (order.get(block) != null) {
            return true;
        }
        if (order.size() >= capacityBlocks) {
            Long oldest = order.keySet().iterator().next();
            order.remove(oldest);
        }
        order.put(block, Boolean.TRUE);
        return false;
    }

    @Override
    public String name() {
        return "LRU";
    }
}

package io.blockcache.bench.policy;

import java.util.HashMap;

/**
 * S3-FIFO (Yang et al., SOSP '23) as libCacheSim implements it (its defaults: small FIFO 10 % of the cache, a
 * ghost FIFO of 90 %, move-to-main threshold 2): a miss enters the small FIFO, or the main FIFO if the ghost
 * remembers it; a hit adds one to the block's counter (capped at 3). Evicted from small, a block with a count of
 * at least 2 moves to main, else its id goes to the ghost; main is a FIFO that reinserts a block with a count
 * above 0 (one less) instead of evicting it. Thread rule: one thread.
 */
public final class S3FifoPolicy implements CachePolicy {
    private static final int MOVE_TO_MAIN_THRESHOLD = 2;
    private static final int FREQUENCY_MAX = 3;

    private final int smallMax;
    private final int capacityBlocks;
    private final int ghostMax;
    private final LruList small = new LruList();
    private final LruList main = new LruList();
    private final LruList ghost = new LruList();
    private final HashMap<Long, Integer> frequency = new HashMap<>();

    /** An S3-FIFO cache of {@code capacityBlocks} blocks. */
    public S3FifoPolicy(int capacityBlocks) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
        this.smallMax = Math.max(1, capacityBlocks / 10);
        this.ghostMax = Math.max(1, capacityBlocks * 9 / 10);
    }

    @Override
    public boolean reference(long block) {
        Integer count = frequency.get(block);
        if (count != null) {
            frequency.put(block, Math.min(FREQUENCY_MAX, count + 1));
            return true;
        }
        boolean remembered = ghost.remove(block);
        while (small.size() + main.size() >= capacityBlocks) {
            if (small.size() >= smallMax || main.size() == 0) {
                evictSmall();
            } else {
                evictMain();
            }
        }
        (remembered ? main : small).addNewest(block);
        frequency.put(block, 0);
        return false;
    }

    private void evictSmall() {
        long block = small.removeOldest();
        if (frequency.get(block) >= MOVE_TO_MAIN_THRESHOLD) {
            main.addNewest(block);
            frequency.put(block, 0);
            return;
        }
        frequency.remove(block);
        ghost.addNewest(block);
        if (ghost.size() > ghostMax) {
            ghost.removeOldest();
        }
    }

    private void evictMain() {
        while (true) {
            long block = main.removeOldest();
            int count = frequency.get(block);
            if (count > 0) {
                main.addNewest(block);
                frequency.put(block, count - 1);
            } else {
                frequency.remove(block);
                return;
            }
        }
    }

    @Override
    public String name() {
        return "S3-FIFO";
    }
}

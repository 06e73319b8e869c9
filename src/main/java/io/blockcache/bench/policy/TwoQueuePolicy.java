package io.blockcache.bench.policy;

/**
 * Full 2Q (Johnson and Shasha, VLDB '94): new blocks enter A1in (a FIFO of Kin = 25 % of the cache); evicted from
 * there they are remembered in A1out (a ghost FIFO of Kout = 50 % of the cache); a miss that A1out remembers
 * goes to Am (LRU). The paper's recommended sizes. Thread rule: one thread.
 */
public final class TwoQueuePolicy implements CachePolicy {
    private final int capacityBlocks;
    private final int kIn;
    private final int kOut;
    private final LruList a1in = new LruList();
    private final LruList a1out = new LruList();
    private final LruList am = new LruList();

    /** A 2Q cache of {@code capacityBlocks} blocks. */
    public TwoQueuePolicy(int capacityBlocks) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
        this.kIn = Math.max(1, capacityBlocks / 4);
        this.kOut = Math.max(1, capacityBlocks / 2);
    }

    @Override
    public boolean reference(long block) {
        if (am.contains(block)) {
            am.touch(block);
            return true;
        }
        if (a1in.contains(block)) {
            return true; // the paper: a hit in A1in does nothing (correlated references)
        }
        if (a1out.remove(block)) {
            reclaim();
            am.addNewest(block);
            return false;
        }
        reclaim();
        a1in.addNewest(block);
        return false;
    }

    /** Makes room for one block: from A1in while it is over Kin (into A1out), else from Am. */
    private void reclaim() {
        if (a1in.size() + am.size() < capacityBlocks) {
            return;
        }
        if (a1in.size() > kIn || am.size() == 0) {
            a1out.addNewest(a1in.removeOldest());
            if (a1out.size() > kOut) {
                a1out.removeOldest();
            }
        } else {
            am.removeOldest();
        }
    }

    @Override
    public String name() {
        return "2Q";
    }
}

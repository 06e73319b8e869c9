package io.blockcache.bench.policy;

/**
 * ARC (Megiddo and Modha, FAST '03, Fig. 4): T1 (seen once recently) and T2 (seen at least twice) hold the cached
 * blocks, B1 and B2 are their ghosts; a ghost hit in B1 grows T1's target p, one in B2 shrinks it.
 * Thread rule: one thread.
 */
public final class ArcPolicy implements CachePolicy {
    private final int c;
    private final LruList t1 = new LruList();
    private final LruList t2 = new LruList();
    private final LruList b1 = new LruList();
    private final LruList b2 = new LruList();
    private int p;

    /** An ARC cache of {@code capacityBlocks} blocks. */
    public ArcPolicy(int capacityBlocks) {
        this.c = Policies.checkCapacity(capacityBlocks);
    }

    @Override
    public boolean reference(long x) {
        if (t1.remove(x)) { // case I
            t2.addNewest(x);
            return true;
        }
        if (t2.contains(x)) {
            t2.touch(x);
            return true;
        }
        if (b1.contains(x)) { // case II
            p = Math.min(c, p + Math.max(1, b2.size() / Math.max(1, b1.size())));
            replace(false);
            b1.remove(x);
            t2.addNewest(x);
            return false;
        }
        if (b2.contains(x)) { // case III
            p = Math.max(0, p - Math.max(1, b1.size() / Math.max(1, b2.size())));
            replace(true);
            b2.remove(x);
            t2.addNewest(x);
            return false;
        }
        int l1 = t1.size() + b1.size(); // case IV
        if (l1 == c) {
            if (t1.size() < c) {
                b1.removeOldest();
                replace(false);
            } else {
                t1.removeOldest();
            }
        } else {
            int total = l1 + t2.size() + b2.size();
            if (total >= c) {
                if (total == 2 * c) {
                    b2.removeOldest();
                }
                replace(false);
            }
        }
        t1.addNewest(x);
        return false;
    }

    /** REPLACE(x, p): evicts from T1 into B1 or from T2 into B2. */
    private void replace(boolean hitInB2) {
        if (t1.size() > 0 && (t1.size() > p || (hitInB2 && t1.size() == p))) {
            b1.addNewest(t1.removeOldest());
        } else if (t2.size() > 0) {
            b2.addNewest(t2.removeOldest());
        } else if (t1.size() > 0) {
            b1.addNewest(t1.removeOldest());
        }
    }

    @Override
    public String name() {
        return "ARC";
    }
}

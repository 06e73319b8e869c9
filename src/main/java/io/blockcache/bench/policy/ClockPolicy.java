package io.blockcache.bench.policy;

import java.util.HashMap;

/**
 * CLOCK (second chance): blocks in a ring of slots with a reference bit set on a hit; the hand clears set bits
 * and evicts the first block whose bit is clear. Thread rule: one thread.
 */
public final class ClockPolicy implements CachePolicy {
    private final long[] slots;
    private final boolean[] referenced;
    private final HashMap<Long, Integer> slotOf = new HashMap<>();
    private int used;
    private int hand;

    /** A CLOCK cache of {@code capacityBlocks} blocks. */
    public ClockPolicy(int capacityBlocks) {
        slots = new long[Policies.checkCapacity(capacityBlocks)];
        referenced = new boolean[capacityBlocks];
    }

    @Override
    public boolean reference(long block) {
        Integer slot = slotOf.get(block);
        if (slot != null) {
            referenced[slot] = true;
            return true;
        }
        int target;
        if (used < slots.length) {
            target = used++;
        } else {
            while (referenced[hand]) {
                referenced[hand] = false;
                hand = (hand + 1) % slots.length;
            }
            target = hand;
            slotOf.remove(slots[target]);
            hand = (hand + 1) % slots.length;
        }
        slots[target] = block;
        referenced[target] = false;
        slotOf.put(block, target);
        return false;
    }

    @Override
    public String name() {
        return "CLOCK";
    }
}

package io.blockcache.bench.policy;

import java.util.HashMap;

/**
 * SIEVE (Zhang et al., NSDI '24): a FIFO queue with a visited bit per block; a hit only sets the bit; the hand
 * walks from the oldest end towards the newest, clearing set bits, and evicts the first unvisited block, staying
 * where it stopped (new blocks go in at the head, behind the hand's walk). Thread rule: one thread.
 */
public final class SievePolicy implements CachePolicy {
    /** A doubly linked queue node. */
    private static final class Node {
        final long block;
        boolean visited;
        Node newer;
        Node older;

        Node(long block) {
            this.block = block;
        }
    }

    private final int capacityBlocks;
    private final HashMap<Long, Node> nodes = new HashMap<>();
    private Node head; // newest
    private Node tail; // oldest
    private Node hand;

    /** A SIEVE cache of {@code capacityBlocks} blocks. */
    public SievePolicy(int capacityBlocks) {
        this.capacityBlocks = Policies.checkCapacity(capacityBlocks);
    }

    @Override
    public boolean reference(long block) {
        Node node = nodes.get(block);
        if (node != null) {
            node.visited = true;
            return true;
        }
        if (nodes.size() >= capacityBlocks) {
            evict();
        }
        node = new Node(block);
        node.older = head;
        if (head != null) {
            head.newer = node;
        }
        head = node;
        if (tail == null) {
            tail = node;
        }
        nodes.put(block, node);
        return false;
    }

    private void evict() {
        Node candidate = hand != null ? hand : tail;
        while (candidate.visited) {
            candidate.visited = false;
            candidate = candidate.newer != null ? candidate.newer : tail;
        }
        hand = candidate.newer;
        if (candidate.newer != null) {
            candidate.newer.older = candidate.older;
        } else {
            head = candidate.older;
        }
        if (candidate.older != null) {
            candidate.older.newer = candidate.newer;
        } else {
            tail = candidate.newer;
        }
        nodes.remove(candidate.block);
    }

    @Override
    public String name() {
        return "SIEVE";
    }
}

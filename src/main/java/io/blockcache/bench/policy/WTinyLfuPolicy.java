package io.blockcache.bench.policy;

import io.blockcache.volume.FrequencySketch;

/**
 * W-TinyLFU (Einziger, Friedman and Manes, ACM ToS 2017; Caffeine's default policy), re-implemented: a window
 * LRU of 1 % of the cache takes every miss; its victim is a candidate for the main cache, a segmented LRU
 * (probation 20 %, protected 80 % of the main part), and is admitted only if the frequency sketch
 * ({@link FrequencySketch}: count-min with doorkeeper and periodic halving, W = 10 × the cache) counts it more
 * often than main's victim (probation's oldest). A hit in probation promotes to protected, whose overflow is
 * demoted to probation. Every access counts in the sketch. Caffeine's adaptive window (hill climbing) and its
 * random admission of warm candidates against hash flooding are left out: the paper's static 1 % window.
 * Thread rule: one thread.
 */
public final class WTinyLfuPolicy implements CachePolicy {
    private final int windowMax;
    private final int protectedMax;
    private final int mainMax;
    private final LruList window = new LruList();
    private final LruList probation = new LruList();
    private final LruList protectedList = new LruList();
    private final FrequencySketch sketch;

    /** A W-TinyLFU cache of {@code capacityBlocks} blocks. */
    public WTinyLfuPolicy(int capacityBlocks) {
        Policies.checkCapacity(capacityBlocks);
        this.windowMax = Math.max(1, capacityBlocks / 100);
        this.mainMax = capacityBlocks - windowMax;
        this.protectedMax = mainMax * 8 / 10;
        this.sketch = new FrequencySketch(capacityBlocks, 10L * capacityBlocks);
    }

    @Override
    public boolean reference(long block) {
        sketch.increment(block);
        if (window.contains(block)) {
            window.touch(block);
            return true;
        }
        if (protectedList.contains(block)) {
            protectedList.touch(block);
            return true;
        }
        if (probation.remove(block)) {
            protectedList.addNewest(block);
            if (protectedList.size() > protectedMax) {
                probation.addNewest(protectedList.removeOldest());
            }
            return true;
        }
        window.addNewest(block);
        if (window.size() > windowMax) {
            long candidate = window.removeOldest();
            if (mainMax == 0) {
                return false;
            }
            if (probation.size() + protectedList.size() < mainMax) {
                probation.addNewest(candidate);
            } else {
                LruList victims = probation.size() > 0 ? probation : protectedList;
                long victim = victims.peekOldest();
                if (sketch.estimate(candidate) > sketch.estimate(victim)) {
                    victims.remove(victim);
                    probation.addNewest(candidate);
                }
            }
        }
        return false;
    }

    @Override
    public String name() {
        return "W-TinyLFU";
    }
}

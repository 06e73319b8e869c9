package io.blockcache.bench.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.loop.Prng;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Belady's optimum against a brute-force search over every admit/evict choice on small traces. */
class BeladyPolicyTest {
    @Test
    void matchesBruteForceOnRandomSmallTraces() {
        // Proves the optimum: on 100 seeded traces of 10 references over 4 blocks, capacities 1..3, Belady's
        // misses equal the fewest any choice of admissions and victims achieves (exhaustive search).
        Prng prng = new Prng(42);
        for (int t = 0; t < 100; t++) {
            long[] trace = new long[10];
            for (int i = 0; i < trace.length; i++) {
                trace[i] = prng.nextInt(4);
            }
            for (int capacity = 1; capacity <= 3; capacity++) {
                int belady = misses(new BeladyPolicy(trace, capacity), trace);
                int best = bruteForce(trace, 0, new HashSet<>(), capacity);
                assertThat(belady).as("trace %s capacity %s", java.util.Arrays.toString(trace), capacity)
                        .isEqualTo(best);
                assertThat(belady).isLessThanOrEqualTo(misses(new LruPolicy(capacity), trace));
            }
        }
    }

    @Test
    void refusesAnotherStream() {
        // Proves the guard: fed a block that is not the next of its stream, it fails instead of answering wrongly.
        BeladyPolicy policy = new BeladyPolicy(new long[] {1, 2}, 1);
        policy.reference(1);
        assertThatThrownBy(() -> policy.reference(3)).isInstanceOf(IllegalStateException.class);
    }

    private static int misses(CachePolicy policy, long[] trace) {
        int misses = 0;
        for (long block : trace) {
            misses += policy.reference(block) ? 0 : 1;
        }
        return misses;
    }

    /** The fewest misses from position {@code i}: on a miss, try not admitting and every eviction. */
    private static int bruteForce(long[] trace, int i, Set<Long> cache, int capacity) {
        if (i == trace.length) {
            return 0;
        }
        long block = trace[i];
        if (cache.contains(block)) {
            return bruteForce(trace, i + 1, cache, capacity);
        }
        int best = 1 + bruteForce(trace, i + 1, cache, capacity); // not admitted
        if (cache.size() < capacity) {
            Set<Long> next = new HashSet<>(cache);
            next.add(block);
            best = Math.min(best, 1 + bruteForce(trace, i + 1, next, capacity));
        } else {
            for (long victim : cache) {
                Set<Long> next = new HashSet<>(cache);
                next.remove(victim);
                next.add(block);
                best = Math.min(best, 1 + bruteForce(trace, i + 1, next, capacity));
            }
        }
        return best;
    }
}

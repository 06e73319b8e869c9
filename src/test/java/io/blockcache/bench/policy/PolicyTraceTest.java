package io.blockcache.bench.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each classic policy on tiny traces whose hits and misses are worked out by hand in the comments. */
class PolicyTraceTest {
    /** The hit (1) / miss (0) pattern of {@code policy} on {@code trace}. */
    static String pattern(CachePolicy policy, long... trace) {
        StringBuilder out = new StringBuilder();
        for (long block : trace) {
            out.append(policy.reference(block) ? '1' : '0');
        }
        return out.toString();
    }

    @Test
    void lruEvictsTheLeastRecentlyUsed() {
        // Proves LRU: capacity 2; A B A C -> C evicts B (A was used after B); then A hits, B misses.
        assertThat(pattern(new LruPolicy(2), 1, 2, 1, 3, 1, 2)).isEqualTo("001010");
    }

    @Test
    void clockGivesReferencedBlocksASecondChance() {
        // Proves CLOCK: capacity 2; A B fill; A hit sets its bit; C: hand clears A's bit, evicts B; A hits;
        // D: hand at A... A's bit is set again by the hit, so the hand clears it and evicts C; A hits.
        assertThat(pattern(new ClockPolicy(2), 1, 2, 1, 3, 1, 4, 1, 3)).isEqualTo("00101010");
    }

    @Test
    void sieveKeepsVisitedBlocksAndLeavesTheHandWhereItStopped() {
        // Proves SIEVE: capacity 3; A B C fill; A hit (visited). D: hand from the tail (A) clears A, evicts B.
        // E: hand continues at C (unvisited): evicts C. A hits, B and C miss.
        assertThat(pattern(new SievePolicy(3), 1, 2, 3, 1, 4, 5, 1, 2)).isEqualTo("00010010");
    }

    @Test
    void lruAndS3FifoDifferOnAScanThroughAHotBlock() {
        // Proves S3-FIFO's quick demotion: capacity 10 (small FIFO 1, main 9). Block 1 is read three times (count
        // 2 in the small FIFO); a scan of 20 one-time blocks then fills the cache, and the first eviction from the
        // small FIFO moves block 1 to main (count >= 2) while every scan block leaves through the small FIFO, so
        // block 1 survives and hits. LRU with the same 10 blocks loses block 1 to the scan.
        List<Long> trace = new ArrayList<>(List.of(1L, 1L, 1L));
        for (long b = 200; b < 220; b++) {
            trace.add(b);
        }
        trace.add(1L);
        long[] blocks = trace.stream().mapToLong(Long::longValue).toArray();
        assertThat(pattern(new LruPolicy(10), blocks)).isEqualTo("011" + "0".repeat(20) + "0");
        assertThat(pattern(new S3FifoPolicy(10), blocks)).isEqualTo("011" + "0".repeat(20) + "1");
    }

    @Test
    void arcRemembersFrequentBlocksThroughAScan() {
        // Proves ARC's T2: capacity 4; blocks 1 and 2 read twice (into T2), then a scan of 8 one-time blocks
        // cycles through T1 only (p stays 0), so 1 and 2 still hit; LRU loses them.
        long[] trace = {1, 2, 1, 2, 10, 11, 12, 13, 14, 15, 16, 17, 1, 2};
        assertThat(pattern(new ArcPolicy(4), trace)).endsWith("11");
        assertThat(pattern(new LruPolicy(4), trace)).endsWith("00");
    }

    @Test
    void twoQueueAdmitsToAmOnlyAfterTheGhostRemembersABlock() {
        // Proves 2Q: capacity 4 (Kin 1, Kout 2). 1, 20, 21, 22 fill A1in; 23 pushes 1 (oldest) to A1out; 1 again
        // is a miss that A1out remembers: it goes to Am. A scan of 30..35 then reclaims from A1in only (it stays
        // above Kin), so 1 in Am hits at the end.
        long[] trace = {1, 20, 21, 22, 23, 1, 30, 31, 32, 33, 34, 35, 1};
        assertThat(pattern(new TwoQueuePolicy(4), trace)).isEqualTo("000000000000" + "1");
        assertThat(pattern(new LruPolicy(4), trace)).endsWith("0");
    }

    @Test
    void wTinyLfuRejectsACandidateSeenLessOftenThanTheVictim() {
        // Proves W-TinyLFU's admission: capacity 100 (window 1, main 99). Blocks 0..98 are read 3 times each
        // (counted in the sketch, filling main); then 100 one-time blocks pass through the window and are each
        // rejected against a victim seen 3 times, so every one of 0..98 still hits afterwards.
        List<Long> trace = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (long b = 0; b < 99; b++) {
                trace.add(b);
            }
        }
        for (long b = 1000; b < 1100; b++) {
            trace.add(b);
        }
        for (long b = 0; b < 99; b++) {
            trace.add(b);
        }
        WTinyLfuPolicy policy = new WTinyLfuPolicy(100);
        String hits = pattern(policy, trace.stream().mapToLong(Long::longValue).toArray());
        assertThat(hits.substring(hits.length() - 99)).isEqualTo("1".repeat(99));
        assertThat(pattern(new LruPolicy(100), trace.stream().mapToLong(Long::longValue).toArray()))
                .endsWith("0".repeat(99));
    }

    @Test
    void everyPolicyHitsABlockReadTwiceInARowAndHoldsAtMostItsCapacity() {
        // Proves the common contract: an immediate re-read hits, and after 50 distinct blocks into a cache of 8,
        // re-reading all 50 hits at most 8 (no policy keeps more than its capacity).
        for (Policies.Named named : Policies.classic()) {
            CachePolicy policy = named.factory().apply(8);
            assertThat(policy.reference(7)).as(named.name()).isFalse();
            assertThat(policy.reference(7)).as(named.name()).isTrue();
            for (long b = 100; b < 150; b++) {
                policy.reference(b);
            }
            int hits = 0;
            for (long b = 149; b >= 100; b--) {
                hits += policy.reference(b) ? 1 : 0;
            }
            assertThat(hits).as(named.name()).isLessThanOrEqualTo(8);
            assertThat(policy.name()).isEqualTo(named.name());
        }
    }
}

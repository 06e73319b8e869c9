package io.blockcache.bench.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The log-structured yardsticks: bucket-granular eviction with reinsertion, and S3-FIFO built from two logs. */
class LogPolicyTest {
    private static final int B = BucketLog.BLOCKS_PER_BUCKET;

    /** References blocks {@code [from, to)} once each; returns how many hit. */
    private static int run(CachePolicy policy, long from, long to) {
        int hits = 0;
        for (long b = from; b < to; b++) {
            hits += policy.reference(b) ? 1 : 0;
        }
        return hits;
    }

    @Test
    void aBlockHitSinceItWasWrittenIsRewrittenWhenItsBucketIsReusedTheOthersGo() {
        // Proves the hit-based reinsertion: a log of 2 buckets; blocks 0..63 fill it, block 5 is hit; the next
        // fill reuses bucket 0: block 5 is rewritten (1 block), blocks 0..4 and 6..31 leave. So 5 still hits,
        // 0 misses. Without the hit, 5 would leave with its bucket like 0 (the second, fresh policy).
        BucketLogPolicy log = new BucketLogPolicy(2 * B, false);
        assertThat(run(log, 0, 2 * B)).isZero();
        assertThat(log.reference(5)).isTrue();
        assertThat(log.reference(1000)).isFalse();
        assertThat(log.rewrittenBlocks()).isEqualTo(1);
        assertThat(log.reference(5)).isTrue();
        assertThat(log.reference(0)).isFalse();

        BucketLogPolicy cold = new BucketLogPolicy(2 * B, false);
        run(cold, 0, 2 * B);
        cold.reference(1000);
        assertThat(cold.rewrittenBlocks()).isZero();
        assertThat(cold.reference(5)).isFalse();
    }

    @Test
    void aBucketWhoseBlocksWereAllHitIsRewrittenWholeAndTheNextOneGoes() {
        // Proves the all-kept case: every block of bucket 0 hit, so reusing it rewrites all 32 and the log moves
        // on to reuse bucket 1 (whose blocks were not hit) for the new block: 0..31 hit afterwards, 32 misses.
        BucketLogPolicy log = new BucketLogPolicy(2 * B, false);
        run(log, 0, 2 * B);
        assertThat(run(log, 0, B)).isEqualTo(B);
        log.reference(1000);
        assertThat(log.rewrittenBlocks()).isEqualTo(B);
        assertThat(run(log, 0, B)).isEqualTo(B);
        assertThat(log.reference(B)).isFalse();
    }

    @Test
    void admissionRefusesABlockSeenOnceOnceTheLogIsFull() {
        // Proves the engine's admission rule in the yardstick: once full, a block read once is not written (it
        // misses again on its second read, which admits it: seen twice, more than the next victim's once).
        BucketLogPolicy log = new BucketLogPolicy(4 * B, true);
        run(log, 0, 4 * B);
        assertThat(log.reference(5000)).isFalse();
        assertThat(log.reference(5000)).isFalse();
        assertThat(log.reference(5000)).isTrue();
    }

    @Test
    void s3FifoLogKeepsABlockHitTwiceThroughAScanAndLruDoesNot() {
        // Proves S3-FIFO's quick demotion on logs: 20 buckets (small log 2, main 18). Block 1 is read three times
        // (count 2 in the small log); a scan of 40 buckets' worth of one-time blocks passes through the small log
        // only, and the first reuse of block 1's small bucket moves it to main (a rewrite). Block 1 then hits;
        // LRU of the same size loses it to the scan.
        S3FifoLogPolicy s3 = new S3FifoLogPolicy(20 * B);
        LruPolicy lru = new LruPolicy(20 * B);
        for (CachePolicy policy : new CachePolicy[] {s3, lru}) {
            policy.reference(1);
            policy.reference(1);
            policy.reference(1);
            assertThat(run(policy, 1000, 1000 + 40 * B)).isZero();
        }
        assertThat(s3.reference(1)).isTrue();
        assertThat(s3.rewrittenBlocks()).isEqualTo(1);
        assertThat(lru.reference(1)).isFalse();
    }
}

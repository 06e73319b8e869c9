package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fixed buckets of {@link DurationHistogram} and their use per op in {@link DeviceCounters}. */
class DurationHistogramTest {
    @Test
    void aDurationLandsInTheFirstBucketWhoseBoundIsAtLeastIt() {
        // Proves the "le" rule at the edges: a bound itself is in its bucket, one ns more is in the next, anything
        // past 10 s is in +Inf, a negative duration counts as 0; the sum adds the (clamped) durations.
        DurationHistogram histogram = new DurationHistogram();
        histogram.record(0);          // bucket 0 (le 10 µs)
        histogram.record(10_000);     // bucket 0: equal to its bound
        histogram.record(10_001);     // bucket 1 (le 25 µs)
        histogram.record(1_000_000);  // bucket 6 (le 1 ms)
        histogram.record(10_000_000_001L); // +Inf, bucket 19
        histogram.record(-5);         // bucket 0, adds 0
        DurationHistogram.Counts counts = histogram.counts();
        long[] expected = new long[DurationHistogram.BUCKETS];
        expected[0] = 3;
        expected[1] = 1;
        expected[6] = 1;
        expected[19] = 1;
        assertThat(counts.bucketCounts()).containsExactly(expected);
        assertThat(counts.count()).isEqualTo(6);
        assertThat(counts.sumNs()).isEqualTo(10_000 + 10_001 + 1_000_000 + 10_000_000_001L);
        assertThat(DurationHistogram.BUCKETS).isEqualTo(20);
        assertThat(DurationHistogram.upperBoundNs(0)).isEqualTo(10_000);
        assertThat(DurationHistogram.upperBoundNs(18)).isEqualTo(10_000_000_000L);
        assertThat(DurationHistogram.upperBoundNs(19)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aCopyDoesNotChangeWithLaterRecords() {
        // Proves counts() is a snapshot: a reader on another thread holds numbers that no later request changes.
        DurationHistogram histogram = new DurationHistogram();
        histogram.record(30_000);
        DurationHistogram.Counts before = histogram.counts();
        histogram.record(30_000);
        assertThat(before.bucketCount(2)).isEqualTo(1);
        assertThat(histogram.counts().bucketCount(2)).isEqualTo(2);
    }

    @Test
    void deviceCountersKeepOneHistogramPerOp() {
        // Proves DeviceCounters counts each completion, failed ones too, in its own op's buckets.
        DeviceCounters counters = new DeviceCounters();
        counters.onSubmit(DeviceOp.READ, 4096, 0);
        counters.onComplete(DeviceOp.READ, 4096, 40_000, IoResult.OK, 40_000);
        counters.onSubmit(DeviceOp.WRITE, 4096, 0);
        counters.onComplete(DeviceOp.WRITE, 4096, 3_000_000, IoResult.error(IoStatus.IO_ERROR, "test"), 3_000_000);
        counters.onSubmit(DeviceOp.DISCARD, 4096, 0);
        counters.onComplete(DeviceOp.DISCARD, 4096, 5, IoResult.OK, 5);
        assertThat(counters.latencyBuckets(DeviceOp.READ).bucketCount(2)).isEqualTo(1);     // le 50 µs
        assertThat(counters.latencyBuckets(DeviceOp.WRITE).bucketCount(8)).isEqualTo(1);    // le 5 ms
        assertThat(counters.latencyBuckets(DeviceOp.DISCARD).bucketCount(0)).isEqualTo(1);  // le 10 µs
        assertThat(counters.latencyBuckets(DeviceOp.FLUSH).count()).isZero();
        assertThat(counters.latencyBuckets(DeviceOp.READ).count()).isEqualTo(1);
        assertThat(counters.latencyBuckets(DeviceOp.WRITE).sumNs()).isEqualTo(3_000_000);
    }
}

package io.blockcache.volume;

/**
 * Tells whether the cache device is congested (bcache: bch_get_congested and the latency thresholds of
 * congested_read/write_threshold_us): it keeps an exponentially weighted average of recent completion latencies,
 * one for reads and one for writes, fed per request by {@link LatencyProbe}. Cheap: two multiplications per
 * completion, no histogram.
 *
 * <p>A sample older than {@link #SAMPLE_EXPIRY_NS} is forgotten. Why: while the device is congested new fills
 * and writes go around it, so fewer samples arrive; without expiry one slow spell could keep the cache
 * bypassed for good. After expiry the next request probes the device afresh (bcache decays its congestion
 * count with time for the same reason).
 *
 * <p>Thread rule: the loop thread.
 */
final class CongestionMonitor {
    /** Weight of a new sample: 1/8, the smoothing TCP uses for its round-trip estimate (RFC 6298). */
    static final double SAMPLE_WEIGHT = 1.0 / 8;
    /** Averages older than this (since their last sample) no longer count: 1 s (ours). */
    static final long SAMPLE_EXPIRY_NS = 1_000_000_000L;

    private final Average reads = new Average();
    private final Average writes = new Average();

    /** One exponentially weighted average with the time of its last sample. */
    private static final class Average {
        double latencyNs;
        long lastSampleNs;
        boolean known;

        void add(long latencyNs, long nowNs) {
            if (!known || nowNs - lastSampleNs >= SAMPLE_EXPIRY_NS) {
                this.latencyNs = latencyNs; // a fresh start: the first sample is the estimate
            } else {
                this.latencyNs += (latencyNs - this.latencyNs) * SAMPLE_WEIGHT;
            }
            lastSampleNs = nowNs;
            known = true;
        }

        boolean above(long thresholdNs, long nowNs) {
            return thresholdNs > 0 && known && nowNs - lastSampleNs < SAMPLE_EXPIRY_NS && latencyNs > thresholdNs;
        }
    }

    /** Feeds the latency of one completed cache-device read. */
    void readCompleted(long latencyNs, long nowNs) {
        reads.add(latencyNs, nowNs);
    }

    /** Feeds the latency of one completed cache-device write. */
    void writeCompleted(long latencyNs, long nowNs) {
        writes.add(latencyNs, nowNs);
    }

    /** True if either average is above its threshold (0 = that threshold is off). */
    boolean congested(long readThresholdNs, long writeThresholdNs, long nowNs) {
        return reads.above(readThresholdNs, nowNs) || writes.above(writeThresholdNs, nowNs);
    }

    /** The recent read latency average in nanoseconds, 0 if none is known. */
    long readLatencyNs() {
        return reads.known ? (long) reads.latencyNs : 0;
    }

    /** The recent write latency average in nanoseconds, 0 if none is known. */
    long writeLatencyNs() {
        return writes.known ? (long) writes.latencyNs : 0;
    }
}

package io.blockcache.bench;

/**
 * The target for one {@code bench nbd} row, as ratios to nbdkit-file measured in the same run: the least
 * IOPS ratio, the most CPU per request ratio, and (for the miss row only) the most p99 latency ratio.
 *
 * @param iopsRatioMin blockcache's IOPS ÷ nbdkit's must be at least this
 * @param cpuRatioMax  blockcache's server CPU per request ÷ nbdkit's must be at most this
 * @param p99RatioMax  blockcache's p99 completion latency ÷ nbdkit's must be at most this (infinite: no bound)
 */
public record NbdGoal(double iopsRatioMin, double cpuRatioMax, double p99RatioMax) {
    /** Peak resident set of {@code serve} with a 2 GiB cache through the whole run. */
    public static final long PEAK_RSS_MAX_BYTES = 256L << 20;

    /**
     * The table: every row at least as fast as nbdkit at ≤ 1.5× its CPU per request, except 4 KiB random
     * writes with writeback running (≥ 0.8× at ≤ 2.0×: they are also written back), and the miss row's p99
     * ≤ 1.5× nbdkit's.
     */
    public static NbdGoal of(NbdWorkload workload) {
        return switch (workload) {
            case RANDWRITE4K -> new NbdGoal(0.8, 2.0, Double.POSITIVE_INFINITY);
            case RANDREAD4K_MISS -> new NbdGoal(1.0, 1.5, 1.5);
            default -> new NbdGoal(1.0, 1.5, Double.POSITIVE_INFINITY);
        };
    }

    /** Whether ratios measured for a row meet this goal (a NaN ratio, i.e. nothing to compare, does not). */
    public boolean metBy(double iopsRatio, double cpuRatio, double p99Ratio) {
        return iopsRatio >= iopsRatioMin && cpuRatio <= cpuRatioMax && p99Ratio <= p99RatioMax;
    }

    /** "≥ 0.8x, CPU ≤ 2.0x" (and ", p99 ≤ 1.5x" where bounded), for the table. */
    public String describe() {
        String text = String.format(java.util.Locale.ROOT, ">= %.1fx, CPU <= %.1fx", iopsRatioMin, cpuRatioMax);
        return Double.isInfinite(p99RatioMax) ? text
                : text + String.format(java.util.Locale.ROOT, ", p99 <= %.1fx", p99RatioMax);
    }
}

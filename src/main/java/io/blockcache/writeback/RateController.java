package io.blockcache.writeback;

/**
 * bcache's PI controller of the writeback rate while the front end is busy ({@code __update_writeback_rate},
 * read, not copied): the error is dirty minus target sectors; P = error / p_term_inverse; the integral
 * accumulates error·dt (dt = the update period in seconds) and I = integral / i_term_inverse; the rate is
 * P + I clamped to [rate_min, rate_max] (rate_max = 10^9 sectors/s when unset, bcache's NSEC_PER_SEC).
 *
 * <p>Anti-windup, as bcache: a negative error shrinks the integral only while it is positive; a positive
 * error grows it only while the pacer keeps up with the current rate (else more rate would not help).
 *
 * <p>Fragmentation boost, as bcache: when more than 50 % of the buckets are in use and they hold over 3 times
 * more space than the dirty data ("fragment"), P becomes at least dirty-per-bucket × a term that grows with
 * the use (×1 from 50 %, ×10 from 57 %, ×1000 from 64 %), so few dirty sectors spread over many buckets still
 * drain before the cache fills.
 *
 * <p>Thread rule: the loop thread. Pure state, no I/O: unit-testable against hand-computed values.
 */
final class RateController {
    /** bcache BCH_WRITEBACK_FRAGMENT_THRESHOLD_LOW / MID / HIGH, in percent of buckets in use. */
    static final int FRAGMENT_LOW_PERCENT = 50;
    static final int FRAGMENT_MID_PERCENT = 57;
    static final int FRAGMENT_HIGH_PERCENT = 64;
    /** bcache writeback_rate_fp_term_low / mid / high. */
    static final int FRAGMENT_TERM_LOW = 1;
    static final int FRAGMENT_TERM_MID = 10;
    static final int FRAGMENT_TERM_HIGH = 1000;
    /** bcache: fragmentation above this (buckets' space / dirty data) lets the boost override P. */
    static final int FRAGMENT_RATIO_MIN = 3;
    /** bcache caps the rate at NSEC_PER_SEC sectors per second. */
    static final long RATE_CEILING_SECTORS_PER_SECOND = 1_000_000_000L;
    /** bcache's initial rate (dc->writeback_rate.rate = 1024). */
    static final long RATE_INITIAL_SECTORS_PER_SECOND = 1024;

    private double integralSectorSeconds;
    private long rateSectorsPerSecond = RATE_INITIAL_SECTORS_PER_SECOND;
    private RateTerms last = new RateTerms(0, 0, 0, 0, 0, 0, 0, RATE_INITIAL_SECTORS_PER_SECOND, 0, false);

    /**
     * The space picture the fragmentation boost needs: the share and number of buckets in use, which (as bcache's
     * {@code gc_stats.in_use}) are the buckets holding dirty data, not clean ones, which are reclaimable.
     */
    record Space(int inUsePercent, long bucketsInUse, int bucketSectors) {
    }

    /**
     * One update, every {@code settings.rateUpdateNs()}.
     *
     * @param keepingUp true if the pacer was not behind its schedule (bcache: now < next + 1 ms)
     */
    RateTerms update(long dirtySectors, long targetSectors, boolean keepingUp, Space space,
                     WritebackSettings settings) {
        long error = dirtySectors - targetSectors;
        long proportional = error / settings.proportionalInverse();
        long boost = settings.fragmentBoost() ? fragmentBoost(dirtySectors, space) : 0;
        if (boost > 0 && boost > proportional) {
            proportional = boost;
        }
        double dtSeconds = settings.rateUpdateNs() / 1e9;
        boolean frozen = true;
        if ((error < 0 && integralSectorSeconds > 0) || (error > 0 && keepingUp)) {
            integralSectorSeconds += error * dtSeconds;
            frozen = false;
        }
        long integralScaled = (long) (integralSectorSeconds / settings.integralInverse());
        long ceiling = settings.rateMaxSectorsPerSecond() > 0 ? settings.rateMaxSectorsPerSecond()
                : RATE_CEILING_SECTORS_PER_SECOND;
        long rate = Math.max(settings.rateMinSectorsPerSecond(), Math.min(ceiling, proportional + integralScaled));
        long change = rate - rateSectorsPerSecond;
        rateSectorsPerSecond = rate;
        last = new RateTerms(targetSectors, dirtySectors, error, proportional, boost, (long) integralSectorSeconds,
                integralScaled, rate, change, frozen);
        return last;
    }

    private static long fragmentBoost(long dirtySectors, Space space) {
        if (space.inUsePercent() <= FRAGMENT_LOW_PERCENT || dirtySectors <= 0 || space.bucketsInUse() <= 0) {
            return 0;
        }
        long fragment = space.bucketsInUse() * space.bucketSectors() / dirtySectors;
        if (fragment <= FRAGMENT_RATIO_MIN) {
            return 0;
        }
        int use = space.inUsePercent();
        long term;
        if (use <= FRAGMENT_MID_PERCENT) {
            term = (long) FRAGMENT_TERM_LOW * (use - FRAGMENT_LOW_PERCENT);
        } else if (use <= FRAGMENT_HIGH_PERCENT) {
            term = (long) FRAGMENT_TERM_MID * (use - FRAGMENT_MID_PERCENT);
        } else {
            term = (long) FRAGMENT_TERM_HIGH * (use - FRAGMENT_HIGH_PERCENT);
        }
        return dirtySectors / space.bucketsInUse() * term;
    }

    /** The rate now in force, sectors per second. */
    long rateSectorsPerSecond() {
        return rateSectorsPerSecond;
    }

    /** The terms of the last update. */
    RateTerms last() {
        return last;
    }
}

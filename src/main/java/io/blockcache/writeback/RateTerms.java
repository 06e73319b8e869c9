package io.blockcache.writeback;

/**
 * Every term of the last rate update, the equivalent of bcache's {@code writeback_rate_debug}. Sectors are 512
 * bytes; rates are sectors per second.
 *
 * @param targetSectors dirty sectors the controller steers toward
 * @param dirtySectors dirty sectors at the update
 * @param errorSectors {@code dirty - target}
 * @param proportional P term (error / p_term_inverse, or the fragmentation boost when larger)
 * @param fragmentBoost the fragmentation term computed (0 when it did not apply)
 * @param integralSectorSeconds the accumulated error·seconds
 * @param integralScaled I term (integral / i_term_inverse)
 * @param rateSectorsPerSecond the new rate, clamped to [rate_min, rate_max or 10^9]
 * @param changeSectorsPerSecond new rate minus the previous one
 * @param integralFrozen true if anti-windup kept the integral from growing this time
 */
public record RateTerms(long targetSectors, long dirtySectors, long errorSectors, long proportional,
                        long fragmentBoost, long integralSectorSeconds, long integralScaled,
                        long rateSectorsPerSecond, long changeSectorsPerSecond, boolean integralFrozen) {
    /** Multi-line text in the style of bcache's {@code writeback_rate_debug}. */
    public String debugText() {
        return "rate:\t\t" + rateSectorsPerSecond * 512 / 1024 + " KiB/s\n"
                + "dirty:\t\t" + dirtySectors * 512 / 1024 + " KiB\n"
                + "target:\t\t" + targetSectors * 512 / 1024 + " KiB\n"
                + "proportional:\t" + proportional * 512 / 1024 + " KiB/s\n"
                + "integral:\t" + integralScaled * 512 / 1024 + " KiB/s\n"
                + "fragment boost:\t" + fragmentBoost * 512 / 1024 + " KiB/s\n"
                + "change:\t\t" + changeSectorsPerSecond * 512 / 1024 + " KiB/s\n"
                + "integral frozen:\t" + integralFrozen + "\n";
    }
}

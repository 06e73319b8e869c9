package io.blockcache.admin;

/**
 * The unit of a metric's value: what the snapshot holds (sectors, nanoseconds, percent), what {@code /metrics}
 * exports (its base unit: bytes, seconds, ratio, as Prometheus' naming rules ask) and what a key of
 * {@code /api/stats} shows (milliseconds, microseconds where the key says so). Units of one dimension convert into
 * each other by their {@link #scale}, an exact integer factor, so a conversion from a unit of scale 1 is one
 * division (the same double as the hand-written {@code ns / 1e9} it replaces).
 *
 * <p>Thread rule: any thread (constants).
 */
public enum MetricUnit {
    /** A plain number of things: requests, buckets, runs, epochs, sequence numbers. */
    COUNT(Dimension.COUNT, 1, ""),
    /** 0 or 1 on {@code /metrics}, false or true in JSON. */
    BOOLEAN(Dimension.COUNT, 1, ""),
    BYTES(Dimension.BYTES, 1, "_bytes"),
    /** 512-byte sectors ({@code BlockDevice.SECTOR_BYTES}); never on {@code /metrics} (base unit: bytes). */
    SECTORS(Dimension.BYTES, 512, "_sectors"),
    BYTES_PER_SECOND(Dimension.BYTES_PER_SECOND, 1, "_bytes_per_second"),
    SECTORS_PER_SECOND(Dimension.BYTES_PER_SECOND, 512, "_sectors_per_second"),
    NANOSECONDS(Dimension.TIME, 1, "_nanoseconds"),
    MICROSECONDS(Dimension.TIME, 1_000, "_microseconds"),
    MILLISECONDS(Dimension.TIME, 1_000_000, "_milliseconds"),
    SECONDS(Dimension.TIME, 1_000_000_000, "_seconds"),
    /** Percent, 0 to 100; never on {@code /metrics} (base unit: ratio). */
    PERCENT(Dimension.FRACTION, 1, "_percent"),
    /** A fraction, 0 to 1. */
    RATIO(Dimension.FRACTION, 100, "_ratio");

    /** What a unit measures; only units of one dimension convert into each other. */
    enum Dimension { COUNT, BYTES, BYTES_PER_SECOND, TIME, FRACTION }

    private final Dimension dimension;
    private final double scale;
    private final String suffix;

    MetricUnit(Dimension dimension, double scale, String suffix) {
        this.dimension = dimension;
        this.scale = scale;
        this.suffix = suffix;
    }

    /** The unit {@code /metrics} exports values of this unit in (Prometheus base units). */
    public MetricUnit base() {
        return switch (dimension) {
            case COUNT -> this;
            case BYTES -> BYTES;
            case BYTES_PER_SECOND -> BYTES_PER_SECOND;
            case TIME -> SECONDS;
            case FRACTION -> RATIO;
        };
    }

    /** The suffix a Prometheus name in this unit carries before {@code _total} (empty for counts). */
    public String suffix() {
        return suffix;
    }

    /** {@code value}, in this unit, converted to {@code target} (same dimension). */
    public double convert(double value, MetricUnit target) {
        if (target == this) {
            return value;
        }
        if (target.dimension != dimension) {
            throw new IllegalArgumentException("cannot convert " + this + " to " + target);
        }
        return value * scale / target.scale;
    }
}

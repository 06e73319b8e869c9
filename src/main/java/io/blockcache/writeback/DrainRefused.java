package io.blockcache.writeback;

/**
 * A drain with a deadline that cannot be met, refused before it starts (docs/WRITEBACK.md, "Drain jobs"): the
 * message says the rate the deadline needs and what stands in the way (the backing device's measured bandwidth, or
 * the drain's own rate cap).
 */
public final class DrainRefused extends IllegalArgumentException {
    private final double neededBytesPerSecond;
    private final double availableBytesPerSecond;

    DrainRefused(String message, double neededBytesPerSecond, double availableBytesPerSecond) {
        super(message);
        this.neededBytesPerSecond = neededBytesPerSecond;
        this.availableBytesPerSecond = availableBytesPerSecond;
    }

    /** The rate the deadline needs: dirty bytes / time left, bytes per second. */
    public double neededBytesPerSecond() {
        return neededBytesPerSecond;
    }

    /** The most the drain could do: the measured backing bandwidth or the cap, bytes per second. */
    public double availableBytesPerSecond() {
        return availableBytesPerSecond;
    }
}

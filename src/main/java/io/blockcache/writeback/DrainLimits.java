package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;

/**
 * What an operator asked of a drain: a ceiling on its rate and a deadline. Validated here once.
 *
 * @param rateMaxSectorsPerSecond ceiling on every writeback pass of the volume while the drain runs; 0 = none
 * @param deadlineNs loop time by which the drain should be done, or {@link #NO_DEADLINE}
 */
public record DrainLimits(long rateMaxSectorsPerSecond, long deadlineNs) {
    /** No deadline (loop time may be negative on a real loop, so no ordinary value can serve). */
    public static final long NO_DEADLINE = Long.MIN_VALUE;
    /** Full speed, no deadline: the drain of detach and shutdown. */
    public static final DrainLimits NONE = new DrainLimits(0, NO_DEADLINE);

    public DrainLimits {
        if (rateMaxSectorsPerSecond < 0) {
            throw new IllegalArgumentException("drain rate cap must be >= 0 sectors/s (0 = none): "
                    + rateMaxSectorsPerSecond);
        }
    }

    /** Limits from a cap in bytes per second (rounded down to whole sectors, at least one) and a deadline. */
    public static DrainLimits ofBytes(long rateMaxBytesPerSecond, long deadlineNs) {
        if (rateMaxBytesPerSecond < 0) {
            throw new IllegalArgumentException("drain rate cap must be >= 0 bytes/s (0 = none): "
                    + rateMaxBytesPerSecond);
        }
        long sectors = rateMaxBytesPerSecond == 0 ? 0
                : Math.max(1, rateMaxBytesPerSecond / BlockDevice.SECTOR_BYTES);
        return new DrainLimits(sectors, deadlineNs);
    }

    /** True if a deadline was given. */
    public boolean hasDeadline() {
        return deadlineNs != NO_DEADLINE;
    }

    /** The cap in bytes per second; 0 = none. */
    public long rateMaxBytesPerSecond() {
        return rateMaxSectorsPerSecond * BlockDevice.SECTOR_BYTES;
    }
}

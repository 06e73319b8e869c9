package io.blockcache.device;

/**
 * The range and alignment rules every {@link BlockDevice} applies to a request before touching data, in
 * one place so that the in-memory and the file device answer a bad request with the same status.
 *
 * <p>Public so that devices outside this package (the NBD client in {@code backing}) answer the same way.
 * Pure functions; any thread.
 */
public final class RequestChecks {
    private RequestChecks() {
    }

    /**
     * Validates a device geometry at construction time (a programming error, so it throws).
     *
     * @throws IllegalArgumentException if the block size is not 512 or 4096, or the size is not a
     *     positive multiple of it
     */
    public static void checkGeometry(long sizeBytes, int logicalBlockBytes) {
        if (logicalBlockBytes != 512 && logicalBlockBytes != 4096) {
            throw new IllegalArgumentException("logicalBlockBytes must be 512 or 4096: " + logicalBlockBytes);
        }
        if (sizeBytes <= 0 || sizeBytes % logicalBlockBytes != 0) {
            throw new IllegalArgumentException("sizeBytes must be a positive multiple of " + logicalBlockBytes
                    + ": " + sizeBytes);
        }
    }

    /**
     * Checks that {@code [offsetBytes, offsetBytes + lengthBytes)} lies inside the device and is aligned.
     * Range is checked before alignment, so a request that is both out of range and misaligned reports
     * {@link IoStatus#OUT_OF_RANGE}.
     *
     * @param op what the request is, for the message
     * @param device a name for the device (a path, or "memory"), for the message
     * @return null if the request is acceptable, otherwise the error to complete it with
     */
    public static IoResult check(DeviceOp op, long offsetBytes, long lengthBytes, long sizeBytes,
            int logicalBlockBytes, String device) {
        if (offsetBytes < 0 || lengthBytes < 0) {
            return IoResult.error(IoStatus.OUT_OF_RANGE, describe(op, offsetBytes, lengthBytes, device)
                    + ": negative offset or length");
        }
        if (offsetBytes > sizeBytes - lengthBytes) { // no overflow: both sides are within [0, size]
            return IoResult.error(IoStatus.OUT_OF_RANGE, describe(op, offsetBytes, lengthBytes, device)
                    + ": beyond the device end at " + sizeBytes);
        }
        if (offsetBytes % logicalBlockBytes != 0 || lengthBytes % logicalBlockBytes != 0) {
            return IoResult.error(IoStatus.MISALIGNED, describe(op, offsetBytes, lengthBytes, device)
                    + ": not a multiple of the logical block size " + logicalBlockBytes);
        }
        return null;
    }

    /** Formats the request for error messages: "write offset=4096 length=8192 on /data/backing.img". */
    public static String describe(DeviceOp op, long offsetBytes, long lengthBytes, String device) {
        return op.name().toLowerCase(java.util.Locale.ROOT) + " offset=" + offsetBytes + " length=" + lengthBytes
                + " on " + device;
    }
}

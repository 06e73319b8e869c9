package io.blockcache.device;

/**
 * The kind of outcome of one device request. Errors are values: a device never throws for an operating
 * error, it completes the request with one of these.
 */
public enum IoStatus {
    /** The request completed as asked. */
    OK,
    /** The device reported a media or transport error (EIO). */
    IO_ERROR,
    /** The request addressed bytes outside the device, or a negative or overflowing range. */
    OUT_OF_RANGE,
    /** The request was not aligned to the device's logical block size where it must be. */
    MISALIGNED,
    /** The device has no space left for the request (ENOSPC, e.g. a full file system under a file). */
    NO_SPACE,
    /** The device was closed before the request could complete. */
    CLOSED
}

package io.blockcache.device;

/**
 * A block device stored in an object store ({@code backing.S3Device}), seen from outside for statistics, as
 * {@link RemoteDevice} is for the NBD client: the admin API needs no backing package. Any thread.
 */
public interface ObjectStoreDevice {
    /** The counters and state now. */
    ObjectStoreStats objectStoreStats();
}

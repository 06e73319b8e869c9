package io.blockcache.admin;

/**
 * Adds, removes and grows volumes of the running cache for {@code /api/volumes} (docs/OPERATIONS.md "Volumes"):
 * implemented by {@code serve}, which owns the backing stores and the NBD exports. Each call blocks until the change is
 * durable (or refused).
 *
 * <p>Thread rule: the admin API's request threads, never the loop's.
 */
public interface VolumeControl {
    /**
     * Attaches {@code uri} (a path, {@code file:}, {@code nbd://} or {@code s3://}) as volume {@code name} and exports
     * it.
     *
     * @param sizeBytes the volume's size for a backing file or S3 volume that does not exist yet (then created), else 0
     * @param logBytes the backing log to reserve after the header (docs/FORMAT.md §4.4), a whole number of MiB; 0 for
     *     none
     * @param inPlace cache the store in place (docs/FORMAT.md §4.2): nothing written on it, all of it exported; it must
     *     exist, and not with a backing log
     * @param mode the cache mode ({@code writeback}, {@code writethrough}, {@code writearound}, {@code none}), or null
     *     for the cache's default
     * @param force overwrite a store that holds another cache set's metadata
     * @throws Refused with one line for the operator (nothing was attached, created or left open)
     */
    void add(String name, String uri, long sizeBytes, long logBytes, boolean inPlace, String mode, boolean force)
            throws Refused;

    /**
     * Stops exporting volume {@code name} and detaches it; refused while it holds dirty data unless
     * {@code discardDirty} (drain it first: {@code POST /api/volumes/NAME/drain}).
     */
    void remove(String name, boolean discardDirty) throws Refused;

    /** Grows volume {@code name} to {@code sizeBytes}; clients see the new size when they connect again. */
    void resize(String name, long sizeBytes) throws Refused;

    /**
     * Pins ({@code unpin}: unpins) bytes {@code [offsetBytes, + lengthBytes)} of volume {@code name} (docs/CACHING.md
     * "Pinning"), saved for the next start before it returns.
     *
     * @throws Refused unknown volume, a bad range, the cap on pinned bytes, or the pins could not be saved
     */
    default void pin(String name, long offsetBytes, long lengthBytes, boolean unpin) throws Refused {
        throw new Refused("this server does not pin ranges");
    }

    /** An operator's request that was refused: one line saying why and what to do. */
    final class Refused extends Exception {
        public Refused(String message) {
            super(message);
        }
    }
}

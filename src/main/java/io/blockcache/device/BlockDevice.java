package io.blockcache.device;

import java.nio.ByteBuffer;

/**
 * An asynchronous block device: the one interface the engine uses for the cache device, the backing
 * store, and the simulated disks.
 *
 * <p>Contract:
 * <ul>
 *   <li><b>Submit and complete.</b> Every method returns at once; the outcome arrives later through the
 *       {@link IoCallback} on the device's owning loop, exactly once, never re-entrantly.</li>
 *   <li><b>Errors are values.</b> Out-of-range or misaligned requests, media errors and requests cut off
 *       by {@link #close()} complete with an error {@link IoResult}; nothing is thrown for them.</li>
 *   <li><b>Buffers.</b> A read fills {@code dst} from its position to its limit; a write stores
 *       {@code src} from its position to its limit. The caller must not touch the buffer until the
 *       callback runs. The buffer's position is unspecified after completion.</li>
 *   <li><b>Durability.</b> A completed write may sit in a volatile cache of the device until a later
 *       {@link #flush} completes, unless it was written with {@code fua}, in which case it is durable
 *       when it completes. A flush makes durable every write that completed before the flush was
 *       submitted.</li>
 *   <li><b>Ordering.</b> Requests in flight at the same time may complete in any order.</li>
 *   <li><b>Thread rule.</b> Submit on the owning loop's thread.</li>
 * </ul>
 */
public interface BlockDevice extends AutoCloseable {
    /** The unit of the on-disk world: 512 bytes, as in the Linux block layer. */
    int SECTOR_BYTES = 512;

    /** Returns the device size in bytes; a multiple of {@link #logicalBlockBytes()}. */
    long sizeBytes();

    /** Returns the alignment in bytes that offsets and lengths must have (512 or 4096). */
    int logicalBlockBytes();

    /**
     * Returns the size in bytes of the aligned unit this device stores most cheaply: its logical block
     * for a disk, one chunk object for an object store (where writing part of a chunk costs a read of the
     * old chunk). Writeback may group its runs by this unit when it is larger than a logical block.
     * A power of two, at least {@link #logicalBlockBytes()}; constant for the device's life. Any thread.
     */
    default int writeUnitBytes() {
        return logicalBlockBytes();
    }

    /** Reads {@code dst.remaining()} bytes starting at byte {@code offsetBytes}. */
    void read(long offsetBytes, ByteBuffer dst, IoCallback callback);

    /**
     * Writes {@code src.remaining()} bytes starting at byte {@code offsetBytes}.
     *
     * @param fua force unit access: complete only once the data is durable
     */
    void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback);

    /**
     * True if this device zeroes a range itself, without the zeroes being sent ({@link #writeZeroes}: NBD's
     * WRITE_ZEROES); false (the default) if callers must write zero buffers. Constant for the device's life; any
     * thread.
     */
    default boolean writesZeroes() {
        return false;
    }

    /**
     * Makes {@code [offsetBytes, + lengthBytes)} read as zeroes without a payload, as a write of zeroes would (same
     * durability, {@code fua} as for {@link #write}). Only when {@link #writesZeroes()}; the default refuses.
     */
    default void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        throw new UnsupportedOperationException("this device does not write zeroes itself; write a zero buffer");
    }

    /** Makes every write completed before this call durable. */
    void flush(IoCallback callback);

    /**
     * Tells the device that a range no longer holds useful data. Afterwards the range reads as zeroes
     * or as its old contents (the device may choose); callers that need zeroes must write them.
     */
    void discard(long offsetBytes, long lengthBytes, IoCallback callback);

    /**
     * Checks whether the storage under this device is still what was opened: for a file, not deleted, replaced or
     * truncated while open ({@link FileWatch}). Returns null if so (and for devices that cannot change under us, the
     * default), else why not in one line naming the file and the change; once non-null, always non-null. May block
     * in a few system calls: any thread but the loop's ({@code EventLoop.offLoop}, the host's watcher thread).
     */
    default String checkPresence() {
        return null;
    }

    /** Returns this device's live counters; safe to read from any thread. */
    DeviceCounters counters();

    /**
     * Stops the device: requests still in flight complete with {@link IoStatus#CLOSED} (or their real
     * outcome if they finished first), later submissions complete with {@link IoStatus#CLOSED}.
     * Idempotent. Thread rule: the owning loop's thread.
     */
    @Override
    void close();
}

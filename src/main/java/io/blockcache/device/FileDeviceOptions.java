package io.blockcache.device;

/**
 * How a {@link FileDevice} does its I/O. Immutable; every value is validated here, once.
 *
 * @param queueDepth I/O threads, which is also the most requests the device has inside the kernel at
 *     once; 1 to {@value #QUEUE_DEPTH_MAX}
 * @param direct open with O_DIRECT (bypass the page cache); the file system must support it
 * @param logicalBlockBytes the device's alignment unit, 512 or 4096; with {@code direct} it must also be a
 *     multiple of the file system's block size (checked when the file is opened)
 * @param readOnly open the file O_RDONLY: writes, flushes and discards complete with an error, and a file the
 *     process may not write (a read-only mount, another user's file) can still be examined ({@code check})
 */
public record FileDeviceOptions(int queueDepth, boolean direct, int logicalBlockBytes, boolean readOnly) {
    /**
     * Default queue depth: 32, the NCQ depth of a SATA disk and a depth at which an NVMe drive is well
     * fed; deeper only queues inside the kernel, shallower starves the elevator (bcache's idle-writeback patch,
     * linux-bcache 2025, measured writeback gaining from a backing queue of 2.5 to 21).
     */
    public static final int QUEUE_DEPTH_DEFAULT = 32;
    /** Upper bound on I/O threads: each is a platform thread with its own stack; 1024 is past any device queue. */
    public static final int QUEUE_DEPTH_MAX = 1024;
    /**
     * Default O_DIRECT: off, because tmpfs and some other file systems refuse it and buffered I/O is
     * durable after a flush all the same; turn it on for a cache device so the page cache does not hold
     * a second copy.
     */
    public static final boolean DIRECT_DEFAULT = false;
    /**
     * Default logical block: 4096, the sector of Advanced Format disks and the page size; O_DIRECT takes it anywhere.
     */
    public static final int LOGICAL_BLOCK_BYTES_DEFAULT = 4096;

    /** The defaults, with the reasons given on each constant. */
    public static final FileDeviceOptions DEFAULTS =
            new FileDeviceOptions(QUEUE_DEPTH_DEFAULT, DIRECT_DEFAULT, LOGICAL_BLOCK_BYTES_DEFAULT, false);

    /**
     * The most direct (off-heap) memory a device with these options holds, in bytes: one bounce buffer per I/O
     * thread (ChannelIo), with room for its alignment.
     */
    public long directBytesMax() {
        return (long) queueDepth * (ChannelIo.BOUNCE_BYTES + Math.max(logicalBlockBytes, 4096));
    }

    /** @throws IllegalArgumentException if a value is out of its documented range */
    public FileDeviceOptions {
        if (queueDepth < 1 || queueDepth > QUEUE_DEPTH_MAX) {
            throw new IllegalArgumentException("queueDepth must be in [1, " + QUEUE_DEPTH_MAX + "]: " + queueDepth);
        }
        if (logicalBlockBytes != 512 && logicalBlockBytes != 4096) {
            throw new IllegalArgumentException("logicalBlockBytes must be 512 or 4096: " + logicalBlockBytes);
        }
    }

    /** Returns a copy with another queue depth. */
    public FileDeviceOptions withQueueDepth(int newQueueDepth) {
        return new FileDeviceOptions(newQueueDepth, direct, logicalBlockBytes, readOnly);
    }

    /** Returns a copy with O_DIRECT on or off. */
    public FileDeviceOptions withDirect(boolean newDirect) {
        return new FileDeviceOptions(queueDepth, newDirect, logicalBlockBytes, readOnly);
    }

    /** Returns a copy with another logical block size. */
    public FileDeviceOptions withLogicalBlockBytes(int newLogicalBlockBytes) {
        return new FileDeviceOptions(queueDepth, direct, newLogicalBlockBytes, readOnly);
    }

    /** Returns a copy opened read-only (or read-write). */
    public FileDeviceOptions withReadOnly(boolean newReadOnly) {
        return new FileDeviceOptions(queueDepth, direct, logicalBlockBytes, newReadOnly);
    }
}

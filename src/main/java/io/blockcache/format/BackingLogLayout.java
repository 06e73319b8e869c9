package io.blockcache.format;

import io.blockcache.loop.Checks;

/**
 * Where things are inside a backing log (docs/FORMAT.md §4.4): the region {@code [BackingHeader.LOG_OFFSET_BYTES,
 * dataOffsetBytes)} of a backing device whose header has {@code logSizeBytes > 0}.
 *
 * <pre>
 *  backing log (offsets relative to its start)
 *  0            4096                                       4096 + dataBytes
 *  +------------+------------+------------+-----+----------+----------------------+--------
 *  | commit     | record 0   | record 1   | ..  | record   | descriptor blocks    | unused
 *  | block      | data, 4 KiB aligned     |     | n-1      | 256 records a block  |
 *  +------------+------------+------------+-----+----------+----------------------+--------
 * </pre>
 * A record's data takes its length rounded up to 4 KiB (zero padded), so every log write is 4 KiB aligned whatever
 * the device's logical block; the descriptors come after the data because a group's record count is known only
 * when it is closed. The body ({@code [4096, 4096 + dataBytes + descriptorBlocks * 4096)}) is covered by the commit
 * block's body CRC.
 *
 * @param logSizeBytes size of the whole region, a multiple of 1 MiB
 */
public record BackingLogLayout(long logSizeBytes) {
    /** The commit block: the first block of the log. */
    public static final int COMMIT_BYTES = ByteLayout.BLOCK_BYTES;
    /** Record data starts right after the commit block. */
    public static final long DATA_OFFSET_BYTES = COMMIT_BYTES;
    /** Encoded size of one record's descriptor. */
    public static final int DESCRIPTOR_BYTES = 16;
    /** Descriptors in one 4 KiB descriptor block. */
    public static final int DESCRIPTORS_PER_BLOCK = ByteLayout.BLOCK_BYTES / DESCRIPTOR_BYTES;

    /** Validates the size. */
    public BackingLogLayout {
        Checks.require(logSizeBytes > 0 && logSizeBytes % BackingHeader.LOG_SIZE_UNIT_BYTES == 0,
                "logSizeBytes must be a positive multiple of 1 MiB, got %d", logSizeBytes);
    }

    /** Bytes a record of {@code lengthSectors} takes in the log: its length rounded up to 4 KiB. */
    public static long recordSlotBytes(long lengthSectors) {
        return ByteLayout.roundUpToBlock(lengthSectors * ByteLayout.SECTOR_BYTES);
    }

    /** Descriptor blocks for {@code recordCount} records. */
    public static long descriptorBlocks(long recordCount) {
        return (recordCount + DESCRIPTORS_PER_BLOCK - 1) / DESCRIPTORS_PER_BLOCK;
    }

    /** Body bytes (record data and descriptors) of a group of {@code recordCount} records and {@code dataBytes}. */
    public static long bodyBytes(long recordCount, long dataBytes) {
        return dataBytes + descriptorBlocks(recordCount) * ByteLayout.BLOCK_BYTES;
    }

    /** True if a group of {@code recordCount} records taking {@code dataBytes} fits in this log with its commit. */
    public boolean fits(long recordCount, long dataBytes) {
        return recordCount >= 0 && dataBytes >= 0 && COMMIT_BYTES + bodyBytes(recordCount, dataBytes) <= logSizeBytes;
    }

    /** Log-relative offset of the descriptor blocks of a group whose records take {@code dataBytes}. */
    public static long descriptorsOffsetBytes(long dataBytes) {
        return DATA_OFFSET_BYTES + dataBytes;
    }
}

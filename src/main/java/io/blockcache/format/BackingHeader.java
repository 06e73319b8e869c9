package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * The header at byte 0 of every backing device: which device this is and which cache set owns it, so that
 * {@link AttachCheck} can refuse a wrong, foreign or resized device at open time.
 *
 * <pre>
 *  BackingHeader: one 4 KiB block at byte 0 of the backing device, little-endian
 *   offset  size  field
 *        0     8  magic "BCACHEBK"
 *        8     4  version (1)
 *       12    16  backingUuid
 *       28    16  cacheSetUuid       the cache set this device is attached to
 *       44     8  dataOffsetBytes    where volume byte 0 lives (default 1 MiB)
 *       52     8  volumeSizeBytes
 *       60     8  logSizeBytes       0: no backing log; else the log's size, and the log is
 *                                    [LOG_OFFSET_BYTES, dataOffsetBytes)
 *       68  4024  zero
 *     4092     4  CRC32C of bytes [0, 4092)
 * </pre>
 *
 * <p>The reserved area before the data: the header, the damage map in the rest of the first MiB
 * ({@link DamageMapGeometry}), and, only if {@code logSizeBytes > 0}, the backing log of journaled write-back
 * right after that MiB, up to the data (docs/FORMAT.md §4.4).
 *
 * @param backingUuid identity of this backing device
 * @param cacheSetUuid identity of the cache set it is attached to
 * @param dataOffsetBytes start of the volume's data, a multiple of 4096, at least 4096
 * @param volumeSizeBytes size of the volume, a positive multiple of 512
 * @param logSizeBytes size of the backing log, 0 for none; else a multiple of 1 MiB and exactly
 *     {@code dataOffsetBytes - LOG_OFFSET_BYTES}
 */
public record BackingHeader(UUID backingUuid, UUID cacheSetUuid, long dataOffsetBytes, long volumeSizeBytes,
                            long logSizeBytes) {
    /** Encoded size: one 4 KiB block. */
    public static final int BYTES = ByteLayout.BLOCK_BYTES;
    /** Default data offset: room for the header and 1 MiB alignment of the volume. */
    public static final long DEFAULT_DATA_OFFSET_BYTES = 1024 * 1024;
    /** Where a backing log starts: right after the header's MiB, which holds the damage map. */
    public static final long LOG_OFFSET_BYTES = DEFAULT_DATA_OFFSET_BYTES;
    /** A backing log's size is a whole number of these. */
    public static final long LOG_SIZE_UNIT_BYTES = 1024 * 1024;

    static final byte[] MAGIC = ByteLayout.magic("BCACHEBK");
    static final int OFFSET_BACKING_UUID = 12;
    static final int OFFSET_CACHE_SET_UUID = 28;
    static final int OFFSET_DATA_OFFSET = 44;
    static final int OFFSET_VOLUME_SIZE = 52;
    static final int OFFSET_LOG_SIZE = 60;
    static final int OFFSET_CRC = BYTES - Integer.BYTES;
    private static final String NAME = "backing header";

    /** Validates every field. */
    public BackingHeader {
        Objects.requireNonNull(backingUuid, "backingUuid");
        Objects.requireNonNull(cacheSetUuid, "cacheSetUuid");
        Checks.require(dataOffsetBytes >= BYTES && dataOffsetBytes % ByteLayout.BLOCK_BYTES == 0,
                "dataOffsetBytes must be a multiple of 4096 and at least 4096, got %d", dataOffsetBytes);
        Checks.require(volumeSizeBytes > 0 && volumeSizeBytes % ByteLayout.SECTOR_BYTES == 0,
                "volumeSizeBytes must be a positive multiple of 512, got %d", volumeSizeBytes);
        Checks.require(Long.MAX_VALUE - dataOffsetBytes >= volumeSizeBytes,
                "dataOffsetBytes + volumeSizeBytes overflows: %d + %d", dataOffsetBytes, volumeSizeBytes);
        Checks.require(logSizeBytes == 0 || (logSizeBytes > 0 && logSizeBytes % LOG_SIZE_UNIT_BYTES == 0
                        && dataOffsetBytes - LOG_OFFSET_BYTES == logSizeBytes),
                "logSizeBytes must be 0, or a multiple of 1 MiB that ends where the data starts (%d + %d != %d)",
                LOG_OFFSET_BYTES, logSizeBytes, dataOffsetBytes);
    }

    /** A header without a backing log. */
    public BackingHeader(UUID backingUuid, UUID cacheSetUuid, long dataOffsetBytes, long volumeSizeBytes) {
        this(backingUuid, cacheSetUuid, dataOffsetBytes, volumeSizeBytes, 0);
    }

    /** True if this device carries a backing log (journaled write-back). */
    public boolean hasLog() {
        return logSizeBytes > 0;
    }

    /** The size the backing device must have: header area plus volume. */
    public long deviceSizeBytes() {
        return dataOffsetBytes + volumeSizeBytes;
    }

    /** Encodes this header into a new 4 KiB block. */
    public byte[] encode() {
        byte[] bytes = new byte[BYTES];
        ByteBuffer buffer = BlockEnvelope.open(bytes, MAGIC);
        ByteLayout.putUuid(buffer, OFFSET_BACKING_UUID, backingUuid);
        ByteLayout.putUuid(buffer, OFFSET_CACHE_SET_UUID, cacheSetUuid);
        buffer.putLong(OFFSET_DATA_OFFSET, dataOffsetBytes);
        buffer.putLong(OFFSET_VOLUME_SIZE, volumeSizeBytes);
        buffer.putLong(OFFSET_LOG_SIZE, logSizeBytes);
        return BlockEnvelope.seal(bytes, OFFSET_CRC);
    }

    /** Decodes the block at {@code bytes[offsetBytes..]}; never throws on bad bytes. */
    public static DecodeResult<BackingHeader> decode(byte[] bytes, int offsetBytes) {
        return BlockEnvelope.decode(bytes, offsetBytes, BYTES, MAGIC, OFFSET_CRC, NAME, OFFSET_DATA_OFFSET, reader -> {
            UUID backingUuid = reader.seek(OFFSET_BACKING_UUID).uuid("backingUuid");
            UUID cacheSetUuid = reader.seek(OFFSET_CACHE_SET_UUID).uuid("cacheSetUuid");
            long dataOffsetBytes = reader.seek(OFFSET_DATA_OFFSET).u64("dataOffsetBytes");
            long volumeSizeBytes = reader.seek(OFFSET_VOLUME_SIZE).u64("volumeSizeBytes");
            long logSizeBytes = reader.seek(OFFSET_LOG_SIZE).u64("logSizeBytes");
            return new BackingHeader(backingUuid, cacheSetUuid, dataOffsetBytes, volumeSizeBytes, logSizeBytes);
        });
    }
}

package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * One backing device attached to a cache set, as recorded in a slot of the {@link CacheSuperblock}.
 *
 * <pre>
 *  slot (98 bytes, little-endian)
 *   0                   16                  24                  32      34  35                        98
 *  +-------------------+-------------------+-------------------+-------+---+-------------------------+
 *  | backingUuid (16)  | volumeSizeBytes   | dataOffsetBytes   |volume |len| exportName UTF-8, 63 B, |
 *  |                   | u64               | u64               |Id u16 |u8 | zero-padded             |
 *  +-------------------+-------------------+-------------------+-------+---+-------------------------+
 * </pre>
 *
 * <p><b>In place</b> ({@link #IN_PLACE_DATA_OFFSET_BYTES}, docs/FORMAT.md §4.2): the backing device carries no
 * header and nothing of the cache; volume byte 0 is device byte 0 and the volume is the whole device. Its identity
 * is then the size and a {@code fingerprint} of sampled blocks, kept in the superblock (not in this slot: the
 * 16 slots fill their area) and re-taken at every clean shutdown.
 *
 * @param backingUuid identity of the backing device (also in its {@link BackingHeader}, unless in place)
 * @param volumeSizeBytes usable size of the volume, a multiple of 512
 * @param dataOffsetBytes where the volume's data starts on the backing device: 0 for a backing cached in place,
 *     else a multiple of 4096 and at least 4096 (the header block), normally
 *     {@link BackingHeader#DEFAULT_DATA_OFFSET_BYTES}
 * @param volumeId the id journal records use for this volume (u16)
 * @param exportName the NBD export name, at most 63 bytes of UTF-8
 * @param fingerprint for a backing cached in place, the first 8 bytes of a SHA-256 of its size and sampled blocks
 *     when the cache last stopped cleanly (or was formatted); 0 otherwise
 * @param location where the backing store is, as given to {@code blockcache volume add} (a path or an {@code nbd://}
 *     URI, at most {@link #LOCATION_BYTES_MAX} bytes of UTF-8), so that a restart finds a volume added live without a
 *     {@code --backing} for it; empty for a volume the command line names (docs/FORMAT.md §3, location records)
 * @param modeCode the cache mode the volume was added with: 0 = the serve's default, else a code of
 *     {@code engine.VolumeModes}
 */
public record AttachedBacking(UUID backingUuid, long volumeSizeBytes, long dataOffsetBytes, int volumeId,
        String exportName, long fingerprint, String location, int modeCode) {
    /** Bytes of one location record in the superblock (§3): mode u8, length u8, location. */
    public static final int LOCATION_RECORD_BYTES = 144;
    /** Longest location in UTF-8 bytes. */
    public static final int LOCATION_BYTES_MAX = LOCATION_RECORD_BYTES - 2;
    /** Encoded size of one slot. */
    public static final int SLOT_BYTES = 98;
    /** Longest export name in UTF-8 bytes: a u8 length and a fixed 63-byte field keep the slot fixed. */
    public static final int EXPORT_NAME_BYTES_MAX = 63;
    /** The data offset that marks a backing cached in place: no header, volume byte 0 = device byte 0. */
    public static final long IN_PLACE_DATA_OFFSET_BYTES = 0;

    static final int OFFSET_BACKING_UUID = 0;
    static final int OFFSET_VOLUME_SIZE = 16;
    static final int OFFSET_DATA_OFFSET = 24;
    static final int OFFSET_VOLUME_ID = 32;
    static final int OFFSET_NAME_LENGTH = 34;
    static final int OFFSET_NAME = 35;

    /** Validates every field; throws IllegalArgumentException with the field, the limit and the value. */
    public AttachedBacking {
        Objects.requireNonNull(backingUuid, "backingUuid");
        Objects.requireNonNull(exportName, "exportName");
        Checks.require(volumeSizeBytes > 0 && volumeSizeBytes % ByteLayout.SECTOR_BYTES == 0,
                "volumeSizeBytes must be a positive multiple of 512, got %d", volumeSizeBytes);
        Checks.require(dataOffsetBytes == IN_PLACE_DATA_OFFSET_BYTES
                        || dataOffsetBytes >= ByteLayout.BLOCK_BYTES && dataOffsetBytes % ByteLayout.BLOCK_BYTES == 0,
                "dataOffsetBytes must be 0 (in place) or a multiple of 4096 and at least 4096, got %d",
                dataOffsetBytes);
        Checks.require(fingerprint == 0 || dataOffsetBytes == IN_PLACE_DATA_OFFSET_BYTES,
                "only a backing cached in place has a fingerprint, got %d", fingerprint);
        Checks.require(Long.MAX_VALUE - dataOffsetBytes >= volumeSizeBytes,
                "dataOffsetBytes + volumeSizeBytes overflows: %d + %d", dataOffsetBytes, volumeSizeBytes);
        ByteLayout.requireU16("volumeId", volumeId);
        int nameBytes = exportName.getBytes(StandardCharsets.UTF_8).length;
        Checks.require(nameBytes <= EXPORT_NAME_BYTES_MAX, "exportName must be at most %d bytes of UTF-8, "
                + "\"%s\" has %d", EXPORT_NAME_BYTES_MAX, exportName, nameBytes);
        Objects.requireNonNull(location, "location");
        int locationBytes = location.getBytes(StandardCharsets.UTF_8).length;
        Checks.require(locationBytes <= LOCATION_BYTES_MAX, "location must be at most %d bytes of UTF-8, \"%s\" has %d",
                LOCATION_BYTES_MAX, location, locationBytes);
        Checks.require(modeCode >= 0 && modeCode <= 255, "modeCode must be a u8, got %d", modeCode);
    }

    /** A backing named by the command line (no location record), with {@code fingerprint} (0 unless in place). */
    public AttachedBacking(UUID backingUuid, long volumeSizeBytes, long dataOffsetBytes, int volumeId,
            String exportName, long fingerprint) {
        this(backingUuid, volumeSizeBytes, dataOffsetBytes, volumeId, exportName, fingerprint, "", 0);
    }

    /** A backing with a header (not in place): no fingerprint. */
    public AttachedBacking(UUID backingUuid, long volumeSizeBytes, long dataOffsetBytes, int volumeId,
            String exportName) {
        this(backingUuid, volumeSizeBytes, dataOffsetBytes, volumeId, exportName, 0);
    }

    /** True if the backing device is cached in place (no header on it). */
    public boolean inPlace() {
        return dataOffsetBytes == IN_PLACE_DATA_OFFSET_BYTES;
    }

    /** This slot with another fingerprint (taken again at a clean shutdown). */
    public AttachedBacking withFingerprint(long newFingerprint) {
        return new AttachedBacking(backingUuid, volumeSizeBytes, dataOffsetBytes, volumeId, exportName,
                newFingerprint, location, modeCode);
    }

    /** This slot with another volume size (a grow). */
    public AttachedBacking withVolumeSizeBytes(long newVolumeSizeBytes) {
        return new AttachedBacking(backingUuid, newVolumeSizeBytes, dataOffsetBytes, volumeId, exportName,
                fingerprint, location, modeCode);
    }

    /** This slot with its location record (a volume added live). */
    public AttachedBacking withLocation(String newLocation, int newModeCode) {
        return new AttachedBacking(backingUuid, volumeSizeBytes, dataOffsetBytes, volumeId, exportName,
                fingerprint, newLocation, newModeCode);
    }

    /** Writes the location record at {@code offsetBytes} (zeros for none). */
    void encodeLocation(ByteBuffer buffer, int offsetBytes) {
        byte[] bytes = location.getBytes(StandardCharsets.UTF_8);
        buffer.put(offsetBytes, (byte) modeCode);
        buffer.put(offsetBytes + 1, (byte) bytes.length);
        buffer.put(offsetBytes + 2, bytes);
    }

    /** Reads the location record at the reader's position into this slot. */
    AttachedBacking decodeLocation(FieldReader reader, int slotIndex) throws MalformedException {
        String prefix = "location[" + slotIndex + "].";
        int start = reader.position();
        int mode = reader.u8(prefix + "mode");
        int length = reader.seek(start + 1).u8(prefix + "length");
        if (length > LOCATION_BYTES_MAX) {
            throw reader.invalid(prefix + "length", 1, "at most " + LOCATION_BYTES_MAX, length);
        }
        String text = reader.seek(start + 2).utf8(prefix + "location", length);
        return withLocation(text, mode);
    }

    void encode(ByteBuffer buffer, int offsetBytes) {
        byte[] name = exportName.getBytes(StandardCharsets.UTF_8);
        ByteLayout.putUuid(buffer, offsetBytes + OFFSET_BACKING_UUID, backingUuid);
        buffer.putLong(offsetBytes + OFFSET_VOLUME_SIZE, volumeSizeBytes);
        buffer.putLong(offsetBytes + OFFSET_DATA_OFFSET, dataOffsetBytes);
        buffer.putShort(offsetBytes + OFFSET_VOLUME_ID, (short) volumeId);
        buffer.put(offsetBytes + OFFSET_NAME_LENGTH, (byte) name.length);
        buffer.put(offsetBytes + OFFSET_NAME, name);
    }

    /** Decodes a slot; the fingerprint (kept outside the slot) is {@code fingerprint}. */
    static AttachedBacking decode(FieldReader reader, int slotIndex, long fingerprint) throws MalformedException {
        String prefix = "backing[" + slotIndex + "].";
        int start = reader.position();
        UUID uuid = reader.seek(start + OFFSET_BACKING_UUID).uuid(prefix + "backingUuid");
        long volumeSizeBytes = reader.seek(start + OFFSET_VOLUME_SIZE).u64(prefix + "volumeSizeBytes");
        long dataOffsetBytes = reader.seek(start + OFFSET_DATA_OFFSET).u64(prefix + "dataOffsetBytes");
        int volumeId = reader.seek(start + OFFSET_VOLUME_ID).u16(prefix + "volumeId");
        int nameLength = reader.seek(start + OFFSET_NAME_LENGTH).u8(prefix + "exportNameLength");
        if (nameLength > EXPORT_NAME_BYTES_MAX) {
            throw reader.invalid(prefix + "exportNameLength", 1, "at most " + EXPORT_NAME_BYTES_MAX, nameLength);
        }
        String name = reader.seek(start + OFFSET_NAME).utf8(prefix + "exportName", nameLength);
        reader.seek(start + SLOT_BYTES);
        try {
            return new AttachedBacking(uuid, volumeSizeBytes, dataOffsetBytes, volumeId, name, fingerprint);
        } catch (IllegalArgumentException e) {
            throw reader.fail(DecodeError.Kind.BAD_FIELD, start, prefix + " " + e.getMessage());
        }
    }
}

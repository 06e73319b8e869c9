package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One record of a backing log group: a range of the volume whose data the group carries (docs/FORMAT.md §4.4).
 *
 * <pre>
 *  descriptor: 16 bytes, little-endian; 256 to a 4 KiB descriptor block, the unused tail of the last block zero
 *   offset  size  field
 *        0     8  volumeSector    first 512-byte sector of the volume the record covers
 *        8     4  lengthSectors   >= 1
 *       12     4  zero
 * </pre>
 *
 * @param volumeSector first sector of the volume (not of the device: the data offset is added on replay)
 * @param lengthSectors sectors the record covers, at least 1
 */
public record BackingLogRecord(long volumeSector, int lengthSectors) {
    /** Validates the fields. */
    public BackingLogRecord {
        Checks.require(volumeSector >= 0 && lengthSectors >= 1 && Long.MAX_VALUE - volumeSector >= lengthSectors,
                "a log record needs volumeSector >= 0 and lengthSectors >= 1, got %d and %d", volumeSector,
                lengthSectors);
    }

    /** Encodes {@code records} into whole descriptor blocks. */
    public static byte[] encode(List<BackingLogRecord> records) {
        byte[] bytes = new byte[(int) (BackingLogLayout.descriptorBlocks(records.size()) * ByteLayout.BLOCK_BYTES)];
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        int at = 0;
        for (BackingLogRecord record : records) {
            buffer.putLong(at, record.volumeSector);
            buffer.putInt(at + 8, record.lengthSectors);
            at += BackingLogLayout.DESCRIPTOR_BYTES;
        }
        return bytes;
    }

    /**
     * Decodes {@code count} descriptors from the start of {@code bytes}. The caller has checked the body CRC, so a
     * bad field here means a writer broke the format; it is reported, never thrown.
     */
    public static DecodeResult<List<BackingLogRecord>> decode(byte[] bytes, int count) {
        if (count < 0 || (long) count * BackingLogLayout.DESCRIPTOR_BYTES > bytes.length) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.TRUNCATED, 0, "backing log descriptors: "
                    + count + " records do not fit in " + bytes.length + " bytes"));
        }
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        List<BackingLogRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = i * BackingLogLayout.DESCRIPTOR_BYTES;
            long sector = buffer.getLong(at);
            long length = Integer.toUnsignedLong(buffer.getInt(at + 8));
            if (sector < 0 || length < 1 || length > Integer.MAX_VALUE || buffer.getInt(at + 12) != 0) {
                return DecodeResult.failed(new DecodeError(DecodeError.Kind.BAD_FIELD, at, "backing log descriptor "
                        + i + ": sector " + sector + ", " + length + " sectors, reserved "
                        + buffer.getInt(at + 12)));
            }
            records.add(new BackingLogRecord(sector, (int) length));
        }
        return DecodeResult.ok(records);
    }
}

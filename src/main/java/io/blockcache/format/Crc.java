package io.blockcache.format;

import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) over byte ranges, the one checksum of the format. Structures that store their
 * CRC inside the covered range compute it with that 4-byte field read as zero.
 */
public final class Crc {
    private static final byte[] ZERO_FIELD = new byte[Integer.BYTES];

    private Crc() {
    }

    /** Returns the CRC32C of {@code lengthBytes} bytes of {@code bytes} starting at {@code offsetBytes}. */
    public static int of(byte[] bytes, int offsetBytes, int lengthBytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offsetBytes, lengthBytes);
        return (int) crc.getValue();
    }

    /**
     * Returns the CRC32C of {@code [offsetBytes, offsetBytes + lengthBytes)} with the 4-byte field at
     * absolute position {@code fieldOffsetBytes} (inside the range) taken as zero.
     */
    public static int ofWithZeroField(byte[] bytes, int offsetBytes, int lengthBytes, int fieldOffsetBytes) {
        int end = offsetBytes + lengthBytes;
        if (fieldOffsetBytes < offsetBytes || fieldOffsetBytes + Integer.BYTES > end) {
            throw new IllegalArgumentException("CRC field at " + fieldOffsetBytes + " outside [" + offsetBytes
                    + ", " + end + ")");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, offsetBytes, fieldOffsetBytes - offsetBytes);
        crc.update(ZERO_FIELD, 0, ZERO_FIELD.length);
        int after = fieldOffsetBytes + Integer.BYTES;
        crc.update(bytes, after, end - after);
        return (int) crc.getValue();
    }

    /** Formats a CRC the way every message shows it: {@code 0x} and eight hex digits. */
    public static String hex(int crc) {
        return String.format("0x%08x", crc);
    }
}

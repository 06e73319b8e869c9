package io.blockcache.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * Constants and helpers shared by every structure: little-endian buffers, range checks for unsigned
 * fields on encode, UUIDs, magics, and the common header check (length, magic, version, CRC) that every
 * decoder runs in the same order so that a flipped bit is always reported the same way.
 */
public final class ByteLayout {
    /** Format version written by this code and the only one it reads. */
    public static final int FORMAT_VERSION = 1;
    /** Size of the magic that starts every structure. */
    public static final int MAGIC_BYTES = 8;
    /** Every structure starts with its magic at byte 0 and the format version (u32) at byte 8. */
    public static final int OFFSET_MAGIC = 0;
    /** See {@link #OFFSET_MAGIC}. */
    public static final int OFFSET_VERSION = 8;
    /** The unit of superblocks, backing headers and journal entries: one 4 KiB block. */
    public static final int BLOCK_BYTES = 4096;
    /** Sector size: lengths and offsets named "Sectors" count these. */
    public static final int SECTOR_BYTES = 512;
    /** Largest unsigned 16-bit value. */
    public static final int U16_MAX = 0xFFFF;
    /** Largest unsigned 8-bit value. */
    public static final int U8_MAX = 0xFF;

    private ByteLayout() {
    }

    /** Returns a little-endian view of {@code bytes}. */
    public static ByteBuffer littleEndian(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Returns the ASCII bytes of an 8-character magic. */
    static byte[] magic(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length != MAGIC_BYTES) {
            throw new IllegalArgumentException("magic must be 8 ASCII bytes: " + text);
        }
        return bytes;
    }

    /** Rounds {@code bytes} up to a multiple of {@link #BLOCK_BYTES}. */
    public static long roundUpToBlock(long bytes) {
        return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES;
    }

    /** Returns true if {@code value} is a positive power of two. */
    public static boolean isPowerOfTwo(long value) {
        return value > 0 && (value & (value - 1)) == 0;
    }

    /** Checks that {@code value} fits an unsigned 8-bit field. */
    static void requireU8(String name, int value) {
        if (value < 0 || value > U8_MAX) {
            throw new IllegalArgumentException(name + " must be in [0, " + U8_MAX + "], got " + value);
        }
    }

    /** Checks that {@code value} fits an unsigned 16-bit field. */
    static void requireU16(String name, int value) {
        if (value < 0 || value > U16_MAX) {
            throw new IllegalArgumentException(name + " must be in [0, " + U16_MAX + "], got " + value);
        }
    }

    /** Checks that {@code value} is non-negative (u32 fields are carried in a Java int, so at most 2^31-1). */
    static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
    }

    static void putUuid(ByteBuffer buffer, int offsetBytes, UUID uuid) {
        // Big-endian halves inside a little-endian format: the 16 bytes then read like the printed UUID.
        buffer.order(ByteOrder.BIG_ENDIAN);
        buffer.putLong(offsetBytes, uuid.getMostSignificantBits());
        buffer.putLong(offsetBytes + Long.BYTES, uuid.getLeastSignificantBits());
        buffer.order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Checks the parts every block-shaped structure shares, in a fixed order: enough bytes, magic, version,
     * then the CRC stored at {@code crcOffsetBytes} over {@code [offset, offset + coveredBytes)} with the CRC
     * field taken as zero. Offsets in the error are relative to {@code offsetBytes}.
     */
    static DecodeError checkEnvelope(byte[] bytes, int offsetBytes, int availableBytes, int coveredBytes,
            byte[] magic, int crcOffsetBytes, String structure) {
        if (availableBytes < coveredBytes) {
            return new DecodeError(DecodeError.Kind.TRUNCATED, 0, structure + ": need " + coveredBytes
                    + " bytes, found " + availableBytes);
        }
        DecodeError header = checkMagicAndVersion(bytes, offsetBytes, magic, structure);
        if (header != null) {
            return header;
        }
        ByteBuffer buffer = littleEndian(bytes);
        int stored = buffer.getInt(offsetBytes + crcOffsetBytes);
        int computed = Crc.ofWithZeroField(bytes, offsetBytes, coveredBytes, offsetBytes + crcOffsetBytes);
        if (stored != computed) {
            return new DecodeError(DecodeError.Kind.BAD_CRC, crcOffsetBytes, structure + ": CRC32C over "
                    + coveredBytes + " bytes is " + Crc.hex(computed) + ", stored " + Crc.hex(stored));
        }
        return null;
    }

    /** Checks the magic and version at {@code offsetBytes}; the caller has checked that 12 bytes exist. */
    static DecodeError checkMagicAndVersion(byte[] bytes, int offsetBytes, byte[] magic, String structure) {
        // Compared in place: the journal search probes every 4 KiB position of the ring this way after a crash, and
        // most hold no entry; the copy and the message are made only for the answer.
        if (!Arrays.equals(bytes, offsetBytes, offsetBytes + MAGIC_BYTES, magic, 0, MAGIC_BYTES)) {
            byte[] found = Arrays.copyOfRange(bytes, offsetBytes, offsetBytes + MAGIC_BYTES);
            return new DecodeError(DecodeError.Kind.BAD_MAGIC, 0, structure + ": expected magic "
                    + printable(magic) + ", found " + printable(found));
        }
        int version = littleEndian(bytes).getInt(offsetBytes + MAGIC_BYTES);
        if (version != FORMAT_VERSION) {
            return new DecodeError(DecodeError.Kind.UNKNOWN_VERSION, MAGIC_BYTES, structure
                    + ": expected format version " + FORMAT_VERSION + ", found " + Integer.toUnsignedString(version));
        }
        return null;
    }

    private static final char[] HEX_DIGITS = "0123456789abcdef".toCharArray();

    /** Renders bytes as ASCII where printable and as {@code \xNN} elsewhere, for messages. */
    static String printable(byte[] bytes) {
        StringBuilder text = new StringBuilder("\"");
        for (byte b : bytes) {
            if (b >= 0x20 && b < 0x7f) {
                text.append((char) b);
            } else {
                // Not String.format: a Formatter per byte was a fifth of the journal decode's time after a crash (JFR)
                text.append("\\x").append(HEX_DIGITS[(b >> 4) & 0xf]).append(HEX_DIGITS[b & 0xf]);
            }
        }
        return text.append('"').toString();
    }
}

package io.blockcache.format;

import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) over byte ranges, the one checksum of the format. Structures that store their
 * CRC inside the covered range compute it with that 4-byte field read as zero.
 */
public final class Crc {
    private static final byte[] ZERO_FIELD = new byte[Integer.BYTES];
    /** CRC32C's polynomial, bit-reflected (as java.util.zip.CRC32C and the SSE4.2 instruction use it). */
    private static final int POLYNOMIAL_REFLECTED = 0x82F63B78;
    /** Bytes of the block {@link #append4KiB} appends. */
    private static final int BLOCK_BYTES = 4096;
    /**
     * The linear map "run the CRC register through 4096 zero bytes", as four tables of 256 (one per byte of the
     * register): {@code shift(x) = T0[x & 0xff] ^ T1[(x >>> 8) & 0xff] ^ T2[..] ^ T3[x >>> 24]}.
     */
    private static final int[][] SHIFT_4KIB = shiftTables(BLOCK_BYTES);

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

    /**
     * The CRC32C of a byte string followed by a 4096-byte block, from the CRC of each: what checksumming the two
     * back to back would give, without reading the bytes again. A write checksums each 4 KiB block of its buffer
     * (docs/FORMAT.md §9) and folds those into its span's CRC this way instead of a second pass over the data.
     *
     * <p>Why it holds: CRC32C's register update is linear over GF(2), so running register {@code r} through bytes
     * {@code B} gives {@code L(r) ^ raw(0, B)}, where {@code L} runs it through as many zero bytes; the initial and
     * final inversions then cancel, leaving {@code crc(A B) = L(crc(A)) ^ crc(B)} (zlib's {@code crc32_combine}).
     */
    public static int append4KiB(int crcBefore, int crcOfBlock) {
        return SHIFT_4KIB[0][crcBefore & 0xff] ^ SHIFT_4KIB[1][(crcBefore >>> 8) & 0xff]
                ^ SHIFT_4KIB[2][(crcBefore >>> 16) & 0xff] ^ SHIFT_4KIB[3][crcBefore >>> 24] ^ crcOfBlock;
    }

    private static int[][] shiftTables(int zeroBytes) {
        int[] ofBit = new int[Integer.SIZE];
        for (int bit = 0; bit < Integer.SIZE; bit++) {
            int register = 1 << bit;
            for (int i = 0; i < zeroBytes * Byte.SIZE; i++) {
                register = (register & 1) != 0 ? (register >>> 1) ^ POLYNOMIAL_REFLECTED : register >>> 1;
            }
            ofBit[bit] = register;
        }
        int[][] tables = new int[Integer.BYTES][256];
        for (int part = 0; part < Integer.BYTES; part++) {
            for (int value = 0; value < 256; value++) {
                int shifted = 0;
                for (int bit = 0; bit < Byte.SIZE; bit++) {
                    if ((value & (1 << bit)) != 0) {
                        shifted ^= ofBit[part * Byte.SIZE + bit];
                    }
                }
                tables[part][value] = shifted;
            }
        }
        return tables;
    }

    /** Formats a CRC the way every message shows it: {@code 0x} and eight hex digits. */
    public static String hex(int crc) {
        return String.format("0x%08x", crc);
    }
}

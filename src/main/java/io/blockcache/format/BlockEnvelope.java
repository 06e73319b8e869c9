package io.blockcache.format;

import java.nio.ByteBuffer;

/**
 * The envelope shared by the fixed-size metadata blocks (cache superblock, backing header, damage-map block):
 * magic and format version at the front, a CRC32C over the whole block with its own field taken as zero.
 * Encoders open a block here and seal it; decoders check the envelope before a single field is read and turn a
 * constructor's refusal into a {@link DecodeError.Kind#BAD_FIELD}, so no decoder ever throws on bad bytes.
 * Stateless; any thread.
 */
final class BlockEnvelope {
    /** Reads a block's fields and builds the structure; may throw the reader's {@link MalformedException}. */
    @FunctionalInterface
    interface Fields<T> {
        T read(FieldReader reader) throws MalformedException;
    }

    private BlockEnvelope() {
    }

    /** Returns a little-endian view of {@code bytes} with {@code magic} and the format version written. */
    static ByteBuffer open(byte[] bytes, byte[] magic) {
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        buffer.put(ByteLayout.OFFSET_MAGIC, magic);
        buffer.putInt(ByteLayout.OFFSET_VERSION, ByteLayout.FORMAT_VERSION);
        return buffer;
    }

    /** Stores the CRC32C of the whole block at {@code crcOffsetBytes}; returns {@code bytes}. */
    static byte[] seal(byte[] bytes, int crcOffsetBytes) {
        ByteLayout.littleEndian(bytes).putInt(crcOffsetBytes,
                Crc.ofWithZeroField(bytes, 0, bytes.length, crcOffsetBytes));
        return bytes;
    }

    /**
     * Decodes the {@code blockBytes} block at {@code bytes[offsetBytes..]}: envelope first, then {@code fields}.
     *
     * @param badFieldOffsetBytes the offset an {@link IllegalArgumentException} of the constructor is reported at
     */
    static <T> DecodeResult<T> decode(byte[] bytes, int offsetBytes, int blockBytes, byte[] magic,
            int crcOffsetBytes, String structure, int badFieldOffsetBytes, Fields<T> fields) {
        return decode(bytes, offsetBytes, blockBytes, magic, crcOffsetBytes, structure, badFieldOffsetBytes, true,
                fields);
    }

    /**
     * As {@link #decode(byte[], int, int, byte[], int, String, int, Fields)}, with the CRC check as a policy:
     * {@code verifyCrc} false checks size, magic and version and every field, but not the CRC. Only salvage uses
     * that (docs/OPERATIONS.md "Salvage"), when no copy of a block verifies and its fields are the last evidence.
     */
    static <T> DecodeResult<T> decode(byte[] bytes, int offsetBytes, int blockBytes, byte[] magic,
            int crcOffsetBytes, String structure, int badFieldOffsetBytes, boolean verifyCrc, Fields<T> fields) {
        DecodeError envelope;
        if (verifyCrc) {
            envelope = ByteLayout.checkEnvelope(bytes, offsetBytes, bytes.length - offsetBytes, blockBytes,
                    magic, crcOffsetBytes, structure);
        } else if (bytes.length - offsetBytes < blockBytes) {
            envelope = new DecodeError(DecodeError.Kind.TRUNCATED, 0, structure + ": need " + blockBytes
                    + " bytes, found " + (bytes.length - offsetBytes));
        } else {
            envelope = ByteLayout.checkMagicAndVersion(bytes, offsetBytes, magic, structure);
        }
        if (envelope != null) {
            return DecodeResult.failed(envelope);
        }
        FieldReader reader = new FieldReader(bytes, offsetBytes, blockBytes, structure);
        try {
            try {
                return DecodeResult.ok(fields.read(reader));
            } catch (IllegalArgumentException e) {
                throw reader.fail(DecodeError.Kind.BAD_FIELD, badFieldOffsetBytes, e.getMessage());
            }
        } catch (MalformedException e) {
            return DecodeResult.failed(e.error());
        }
    }
}

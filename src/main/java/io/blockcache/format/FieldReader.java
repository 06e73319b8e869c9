package io.blockcache.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A bounds-checked little-endian cursor for decoders: every read names its field, and a read past the
 * limit or a value out of range becomes a {@link MalformedException} carrying the field's offset (relative
 * to {@code baseOffsetBytes}) and what was expected and found.
 */
final class FieldReader {
    private final ByteBuffer buffer;
    private final int baseOffsetBytes;
    private final int limitBytes;
    private final String structure;
    private int position;

    /** Reads {@code bytes[baseOffsetBytes, baseOffsetBytes + lengthBytes)}; errors name {@code structure}. */
    FieldReader(byte[] bytes, int baseOffsetBytes, int lengthBytes, String structure) {
        this.buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        this.baseOffsetBytes = baseOffsetBytes;
        this.limitBytes = baseOffsetBytes + lengthBytes;
        this.structure = structure;
        this.position = baseOffsetBytes;
    }

    /** Current position relative to the base offset. */
    int position() {
        return position - baseOffsetBytes;
    }

    /**
     * Moves to {@code relativeOffsetBytes} from the base offset; returns this reader. Decoders seek to each
     * fixed field's named offset, the same constant the encoder writes at, so that the layout lives in one place.
     */
    FieldReader seek(int relativeOffsetBytes) {
        position = baseOffsetBytes + relativeOffsetBytes;
        return this;
    }

    /** Bytes left before the limit. */
    int remaining() {
        return limitBytes - position;
    }

    int u8(String field) throws MalformedException {
        return Byte.toUnsignedInt(buffer.get(take(field, 1)));
    }

    int u16(String field) throws MalformedException {
        return Short.toUnsignedInt(buffer.getShort(take(field, 2)));
    }

    /** Reads a u32 that this version keeps below 2^31 (counts, buckets, byte sizes). */
    int u32AsInt(String field) throws MalformedException {
        int at = take(field, 4);
        int value = buffer.getInt(at);
        if (value < 0) {
            throw failAbsolute(DecodeError.Kind.BAD_FIELD, at, field + " must be below 2^31, found "
                    + Integer.toUnsignedString(value));
        }
        return value;
    }

    /** Reads a u32 whose full range is valid (CRCs), as the raw int bits. */
    int u32Bits(String field) throws MalformedException {
        return buffer.getInt(take(field, 4));
    }

    /** Reads a u64 whose full range is valid (hashes), as the raw long bits. */
    long u64Bits(String field) throws MalformedException {
        return buffer.getLong(take(field, 8));
    }

    /** Reads a u64 that this version keeps below 2^63 (sequences, sectors, byte sizes). */
    long u64(String field) throws MalformedException {
        int at = take(field, 8);
        long value = buffer.getLong(at);
        if (value < 0) {
            throw failAbsolute(DecodeError.Kind.BAD_FIELD, at, field + " must be below 2^63, found "
                    + Long.toUnsignedString(value));
        }
        return value;
    }

    UUID uuid(String field) throws MalformedException {
        int at = take(field, 16);
        buffer.order(ByteOrder.BIG_ENDIAN);
        UUID uuid = new UUID(buffer.getLong(at), buffer.getLong(at + 8));
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        return uuid;
    }

    /** Reads {@code lengthBytes} of strict UTF-8 (malformed input is an error, not a replacement character). */
    String utf8(String field, int lengthBytes) throws MalformedException {
        int at = take(field, lengthBytes);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(buffer.array(), at, lengthBytes)).toString();
        } catch (CharacterCodingException e) {
            throw failAbsolute(DecodeError.Kind.BAD_FIELD, at, field + " is not valid UTF-8 (" + e + ")");
        }
    }

    /** Returns an error for the field that starts {@code fieldLengthBytes} before the current position. */
    MalformedException invalid(String field, int fieldLengthBytes, String expected, Object found) {
        return failAbsolute(DecodeError.Kind.BAD_FIELD, position - fieldLengthBytes, field + ": expected " + expected
                + ", found " + found);
    }

    /** Returns an error of {@code kind} at {@code relativeOffsetBytes} from the base offset. */
    MalformedException fail(DecodeError.Kind kind, int relativeOffsetBytes, String message) {
        return new MalformedException(new DecodeError(kind, relativeOffsetBytes,
                structure + ": " + message + " (at byte " + relativeOffsetBytes + ")"));
    }

    private MalformedException failAbsolute(DecodeError.Kind kind, int absoluteOffsetBytes, String message) {
        return fail(kind, absoluteOffsetBytes - baseOffsetBytes, message);
    }

    private int take(String field, int lengthBytes) throws MalformedException {
        if (lengthBytes > limitBytes - position) {
            throw failAbsolute(DecodeError.Kind.TRUNCATED, position, field + " needs " + lengthBytes + " bytes, "
                    + Math.max(0, limitBytes - position) + " remain");
        }
        int at = position;
        position += lengthBytes;
        return at;
    }
}

package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Pure encoder and decoder of transmission-phase frames: request headers, simple replies and structured
 * reply chunks. No sockets, no state; big-endian as on the wire.
 *
 * <pre>
 * request           C: 0x25609513(4) flags(2) type(2) handle(8) offset(8) length(4) [payload]
 * simple reply      S: 0x67446698(4) error(4) handle(8) [read data]
 * structured chunk  S: 0x668e33ef(4) flags(2) type(2) handle(8) length(4) payload
 *   OFFSET_DATA       offset(8) data
 *   BLOCK_STATUS      context id(4) then per descriptor: length(4) status flags(4)
 *   ERROR             error(4) message length(2) message
 * </pre>
 *
 * <p>Thread rule: any thread.
 */
public final class TransmissionCodec {
    /** Bytes of an OFFSET_DATA chunk before its data: the chunk header and the offset. */
    public static final int OFFSET_DATA_PREFIX_BYTES = STRUCTURED_HEADER_BYTES + 8;
    /** Longest error message sent in an error chunk; enough to say what and where. */
    public static final int ERROR_MESSAGE_BYTES_MAX = 1024;

    private TransmissionCodec() {
    }

    /** Receives the fields of a decoded request header (a reused request object takes them without a record). */
    interface HeaderFields {
        void header(int flags, int type, long handle, long offsetBytes, long lengthBytes);
    }

    /** Decodes a 28-byte request header; a wrong magic means the stream is out of sync. */
    public static NbdRequest decodeRequest(ByteBuffer frame) throws ProtocolException {
        checkRequestMagic(frame);
        return new NbdRequest(Short.toUnsignedInt(frame.getShort()), Short.toUnsignedInt(frame.getShort()),
                frame.getLong(), frame.getLong(), Integer.toUnsignedLong(frame.getInt()));
    }

    /** As {@link #decodeRequest(ByteBuffer)}, into {@code into} instead of a new record. */
    static void decodeRequest(ByteBuffer frame, HeaderFields into) throws ProtocolException {
        checkRequestMagic(frame);
        into.header(Short.toUnsignedInt(frame.getShort()), Short.toUnsignedInt(frame.getShort()), frame.getLong(),
                frame.getLong(), Integer.toUnsignedLong(frame.getInt()));
    }

    private static void checkRequestMagic(ByteBuffer frame) throws ProtocolException {
        int magic = frame.getInt();
        if (magic != REQUEST_MAGIC) {
            throw new ProtocolException("request magic 0x" + Integer.toHexString(magic) + " is not 0x25609513");
        }
    }

    /** A simple reply header; for a successful READ the data follows it. */
    public static ByteBuffer simpleReply(long handle, int error) {
        return simpleReply(ByteBuffer.allocate(SIMPLE_REPLY_HEADER_BYTES), handle, error);
    }

    /**
     * As {@link #simpleReply(long, int)}, encoded into {@code into} from its start (a reused buffer of at least
     * {@link NbdProtocol#SIMPLE_REPLY_HEADER_BYTES}); returns it flipped.
     */
    public static ByteBuffer simpleReply(ByteBuffer into, long handle, int error) {
        return into.clear().putInt(SIMPLE_REPLY_MAGIC).putInt(error).putLong(handle).flip();
    }

    /** The header and offset of one OFFSET_DATA chunk carrying {@code dataBytes} bytes that follow it. */
    public static ByteBuffer offsetDataPrefix(long handle, long offsetBytes, int dataBytes, boolean done) {
        return offsetDataPrefix(ByteBuffer.allocate(OFFSET_DATA_PREFIX_BYTES), handle, offsetBytes, dataBytes, done);
    }

    /**
     * As {@link #offsetDataPrefix(long, long, int, boolean)}, encoded into {@code into} from its start (at least
     * {@link #OFFSET_DATA_PREFIX_BYTES}); returns it flipped.
     */
    public static ByteBuffer offsetDataPrefix(ByteBuffer into, long handle, long offsetBytes, int dataBytes,
                                              boolean done) {
        chunkHeader(into.clear(), done, REPLY_TYPE_OFFSET_DATA, handle, 8 + dataBytes);
        return into.putLong(offsetBytes).flip();
    }

    /** A NONE chunk, always final: the request succeeded with nothing more to say. */
    public static ByteBuffer noneChunk(long handle) {
        return noneChunk(ByteBuffer.allocate(STRUCTURED_HEADER_BYTES), handle);
    }

    /** As {@link #noneChunk(long)}, encoded into {@code into} from its start; returns it flipped. */
    public static ByteBuffer noneChunk(ByteBuffer into, long handle) {
        return chunkHeader(into.clear(), true, REPLY_TYPE_NONE, handle, 0).flip();
    }

    /** A final ERROR chunk with a message for humans (cut to {@link #ERROR_MESSAGE_BYTES_MAX}). */
    public static ByteBuffer errorChunk(long handle, int error, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int textBytes = Math.min(text.length, ERROR_MESSAGE_BYTES_MAX);
        ByteBuffer chunk = ByteBuffer.allocate(STRUCTURED_HEADER_BYTES + 6 + textBytes);
        chunkHeader(chunk, true, REPLY_TYPE_ERROR, handle, 6 + textBytes);
        return chunk.putInt(error).putShort((short) textBytes).put(text, 0, textBytes).flip();
    }

    /**
     * A BLOCK_STATUS chunk for one context with the first {@code count} descriptors.
     *
     * @param lengthsBytes descriptor lengths, each in 1 .. 2^32-1
     * @param statuses descriptor status flags, as the context defines them
     */
    public static ByteBuffer blockStatusChunk(long handle, boolean done, int contextId, long[] lengthsBytes,
                                              int[] statuses, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a block status chunk needs at least one descriptor");
        }
        ByteBuffer chunk = ByteBuffer.allocate(STRUCTURED_HEADER_BYTES + 4 + 8 * count);
        chunkHeader(chunk, done, REPLY_TYPE_BLOCK_STATUS, handle, 4 + 8 * count);
        chunk.putInt(contextId);
        for (int i = 0; i < count; i++) {
            if (lengthsBytes[i] <= 0 || lengthsBytes[i] > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("descriptor length " + lengthsBytes[i] + " is not in 1..2^32-1");
            }
            chunk.putInt((int) lengthsBytes[i]).putInt(statuses[i]);
        }
        return chunk.flip();
    }

    private static ByteBuffer chunkHeader(ByteBuffer chunk, boolean done, int type, long handle, int lengthBytes) {
        return chunk.putInt(STRUCTURED_REPLY_MAGIC).putShort((short) (done ? REPLY_FLAG_DONE : 0))
                .putShort((short) type).putLong(handle).putInt(lengthBytes);
    }
}

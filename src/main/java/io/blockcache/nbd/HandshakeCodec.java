package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Pure encoder and decoder of handshake frames (fixed newstyle negotiation): no sockets, no state. Decoders
 * read a whole frame from a buffer and throw {@link ProtocolException} for anything malformed; encoders
 * return buffers ready to write (position 0, limit at the end). All numbers big-endian, as on the wire.
 *
 * <pre>
 * greeting      S: "NBDMAGIC"(8) "IHAVEOPT"(8) handshake flags(2)
 * client flags  C: flags(4)
 * option        C: "IHAVEOPT"(8) option(4) data length(4) data
 * option reply  S: 0x3e889045565a9(8) option(4) reply type(4) data length(4) data
 * export name   S: size(8) transmission flags(2) [zeroes(124) unless NO_ZEROES]
 * </pre>
 *
 * <p>Thread rule: any thread.
 */
public final class HandshakeCodec {
    /** Bytes of the old-style answer to NBD_OPT_EXPORT_NAME without the zero padding. */
    public static final int EXPORT_NAME_REPLY_BYTES = 10;
    /** Zero padding after the EXPORT_NAME answer unless both sides agreed on NO_ZEROES. */
    public static final int EXPORT_NAME_PADDING_BYTES = 124;
    /** Query strings and names share the spec's string limit; a list of queries is bounded by the option. */
    private static final int QUERIES_MAX = 1024;

    private HandshakeCodec() {
    }

    /** The server's first 18 bytes: fixed newstyle, and NO_ZEROES offered. */
    public static ByteBuffer greeting() {
        return ByteBuffer.allocate(18).putLong(INIT_MAGIC).putLong(OPTION_MAGIC)
                .putShort((short) (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES)).flip();
    }

    /**
     * Decodes the client's 4-byte flags; unknown bits mean the client speaks something else, and the spec
     * says the server MUST drop the connection.
     */
    public static int decodeClientFlags(ByteBuffer frame) throws ProtocolException {
        int flags = frame.getInt();
        if ((flags & ~(CLIENT_FLAG_FIXED_NEWSTYLE | CLIENT_FLAG_NO_ZEROES)) != 0) {
            throw new ProtocolException("unknown client flags 0x" + Integer.toHexString(flags));
        }
        return flags;
    }

    /** Decodes a 16-byte option header; the magic must be IHAVEOPT. */
    public static OptionHeader decodeOptionHeader(ByteBuffer frame) throws ProtocolException {
        long magic = frame.getLong();
        if (magic != OPTION_MAGIC) {
            throw new ProtocolException("option magic 0x" + Long.toHexString(magic) + " is not IHAVEOPT");
        }
        int option = frame.getInt();
        long dataBytes = Integer.toUnsignedLong(frame.getInt());
        return new OptionHeader(option, dataBytes);
    }

    /** Decodes NBD_OPT_INFO / NBD_OPT_GO data: name length(4) name, count(2), count x info type(2). */
    public static InfoRequest decodeInfoRequest(ByteBuffer data) throws ProtocolException {
        String name = string(data, need(data, 4, "export name length").getInt(), "export name");
        int count = Short.toUnsignedInt(need(data, 2, "info request count").getShort());
        need(data, 2L * count, "info requests");
        List<Integer> types = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            types.add(Short.toUnsignedInt(data.getShort()));
        }
        requireEnd(data, "info request");
        return new InfoRequest(name, types);
    }

    /**
     * Decodes LIST/SET_META_CONTEXT data: name length(4) name, query count(4), count x (length(4) query).
     */
    public static MetaContextRequest decodeMetaContextRequest(ByteBuffer data) throws ProtocolException {
        String name = string(data, need(data, 4, "export name length").getInt(), "export name");
        long count = Integer.toUnsignedLong(need(data, 4, "query count").getInt());
        if (count > QUERIES_MAX) {
            throw new ProtocolException(count + " queries exceed the maximum of " + QUERIES_MAX);
        }
        List<String> queries = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            queries.add(string(data, need(data, 4, "query length").getInt(), "query"));
        }
        requireEnd(data, "meta context request");
        return new MetaContextRequest(name, queries);
    }

    /** Encodes an option reply with {@code data} (may be empty). */
    public static ByteBuffer optionReply(int option, int replyType, byte[] data) {
        return ByteBuffer.allocate(20 + data.length).putLong(OPTION_REPLY_MAGIC).putInt(option).putInt(replyType)
                .putInt(data.length).put(data).flip();
    }

    /** Encodes an error option reply whose data is a message for humans (cut to the spec's string limit). */
    public static ByteBuffer errorReply(int option, int replyType, String message) {
        return optionReply(option, replyType, utf8(message, STRING_BYTES_MAX));
    }

    /** Data of NBD_REP_SERVER: name length(4) name. */
    public static byte[] serverEntry(String exportName) {
        byte[] name = exportName.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + name.length).putInt(name.length).put(name).array();
    }

    /** Data of NBD_REP_INFO / NBD_INFO_EXPORT: type(2) size(8) transmission flags(2). */
    public static byte[] infoExport(long sizeBytes, int transmissionFlags) {
        return ByteBuffer.allocate(12).putShort((short) INFO_EXPORT).putLong(sizeBytes)
                .putShort((short) transmissionFlags).array();
    }

    /** Data of NBD_REP_INFO / NBD_INFO_NAME or NBD_INFO_DESCRIPTION: type(2) string. */
    public static byte[] infoString(int infoType, String text) {
        byte[] bytes = utf8(text, STRING_BYTES_MAX);
        return ByteBuffer.allocate(2 + bytes.length).putShort((short) infoType).put(bytes).array();
    }

    /** Data of NBD_REP_INFO / NBD_INFO_BLOCK_SIZE: type(2) minimum(4) preferred(4) maximum(4), in bytes. */
    public static byte[] infoBlockSize(int minimumBytes, int preferredBytes, int maximumBytes) {
        return ByteBuffer.allocate(14).putShort((short) INFO_BLOCK_SIZE).putInt(minimumBytes)
                .putInt(preferredBytes).putInt(maximumBytes).array();
    }

    /** Data of NBD_REP_META_CONTEXT: context id(4) name. */
    public static byte[] metaContext(int contextId, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + bytes.length).putInt(contextId).put(bytes).array();
    }

    /** The old-style answer to NBD_OPT_EXPORT_NAME: size(8) flags(2) and, unless {@code noZeroes}, 124 zeroes. */
    public static ByteBuffer exportNameReply(long sizeBytes, int transmissionFlags, boolean noZeroes) {
        int bytes = EXPORT_NAME_REPLY_BYTES + (noZeroes ? 0 : EXPORT_NAME_PADDING_BYTES);
        ByteBuffer reply = ByteBuffer.allocate(bytes).putLong(sizeBytes).putShort((short) transmissionFlags);
        return reply.position(bytes).flip();
    }

    /** Decodes a UTF-8 string that must be valid and within the spec's limits. */
    static String string(ByteBuffer data, int lengthBytes, String what) throws ProtocolException {
        if (lengthBytes < 0 || lengthBytes > STRING_BYTES_MAX) {
            throw new ProtocolException(what + " of " + Integer.toUnsignedString(lengthBytes)
                    + " bytes exceeds the maximum of " + STRING_BYTES_MAX);
        }
        ByteBuffer bytes = need(data, lengthBytes, what).slice(data.position(), lengthBytes);
        data.position(data.position() + lengthBytes);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException(what + " is not valid UTF-8");
        }
    }

    private static ByteBuffer need(ByteBuffer data, long bytes, String what) throws ProtocolException {
        if (data.remaining() < bytes) {
            throw new ProtocolException(what + " needs " + bytes + " bytes but only " + data.remaining()
                    + " remain");
        }
        return data;
    }

    private static void requireEnd(ByteBuffer data, String what) throws ProtocolException {
        if (data.hasRemaining()) {
            throw new ProtocolException(what + " has " + data.remaining() + " bytes of trailing data");
        }
    }

    private static byte[] utf8(String text, int bytesMax) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return bytes.length <= bytesMax ? bytes : java.util.Arrays.copyOf(bytes, bytesMax);
    }
}

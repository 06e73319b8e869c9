package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Malformed and random NBD frames for the wire fuzz, each with the answer the server owes it. Every frame is one
 * the server must refuse: none of them may change a byte of any volume. Draws only from the {@link Prng} it is
 * given, so a fuzz worker's frames are a function of its seed.
 */
final class WireFrames {
    /** Any final option reply will do (random data may decode to anything but a success that ends negotiation). */
    static final int ANY_FINAL = Integer.MIN_VALUE;
    /** Longest READ of an ordinary fuzz frame; one in {@link #LARGE_READ_ONE_IN} frames asks up to 64 MiB. */
    static final int READ_BYTES_MAX = 256 << 10;
    static final int LARGE_READ_ONE_IN = 2000;
    /** Longest WRITE payload a fuzz frame carries. */
    static final int PAYLOAD_BYTES_MAX = 16 << 10;

    /** An option and the final reply type it must get: REP_ACK, an error, or {@link #ANY_FINAL}. */
    record Option(byte[] bytes, int option, int expectedFinal) {
    }

    /** A request and the error value it must get. */
    record Request(byte[] bytes, long handle, int expectedError) {
    }

    private final Prng prng;
    private final long volumeBytes;
    private long nextHandle = 1;

    WireFrames(Prng prng, long volumeBytes) {
        this.prng = prng;
        this.volumeBytes = volumeBytes;
    }

    // ---- handshake ----

    /** An option the server answers with an error (or, for LIST, with the exports and an ACK). */
    Option badOption() {
        return switch (prng.nextInt(9)) {
            case 0 -> option(unknownOptionNumber(), randomBytes(64), REP_ERR_UNSUP);
            case 1 -> option(OPT_STARTTLS, new byte[0], REP_ERR_POLICY);
            case 2 -> option(OPT_STRUCTURED_REPLY, randomBytes(1 + prng.nextInt(32)), REP_ERR_INVALID);
            case 3 -> option(OPT_LIST, randomBytes(1 + prng.nextInt(32)), REP_ERR_INVALID);
            case 4 -> option(prng.chance(0.5) ? OPT_INFO : OPT_GO, randomBytes(prng.nextInt(64)), ANY_FINAL);
            case 5 -> option(prng.chance(0.5) ? OPT_INFO : OPT_GO, info("no-such-export-" + prng.nextInt(1000)),
                    REP_ERR_UNKNOWN);
            case 6 -> option(OPT_INFO, truncated(info("default")), REP_ERR_INVALID);
            // Before STRUCTURED_REPLY every metadata-context option is refused, whatever its data.
            case 7 -> option(prng.chance(0.5) ? OPT_LIST_META_CONTEXT : OPT_SET_META_CONTEXT,
                    randomBytes(prng.nextInt(64)), REP_ERR_INVALID);
            default -> option(OPT_LIST, new byte[0], REP_ACK);
        };
    }

    /** Client flags with a bit the server does not know: it must hang up. */
    int badClientFlags() {
        return (1 << (2 + prng.nextInt(30))) | CLIENT_FLAG_FIXED_NEWSTYLE;
    }

    /** A handshake frame after which the server must close the connection, or null for a plain hang-up. */
    byte[] handshakeKiller() {
        return switch (prng.nextInt(5)) {
            case 0 -> ByteBuffer.allocate(16).putLong(OPTION_MAGIC ^ (1L << prng.nextInt(64))).putInt(OPT_LIST)
                    .putInt(0).array(); // wrong magic
            case 1 -> ByteBuffer.allocate(16).putLong(OPTION_MAGIC).putInt(unknownOptionNumber())
                    .putInt(Negotiation.OPTION_DATA_BYTES_MAX + 1 + prng.nextInt(1 << 20)).array(); // oversized
            case 2 -> option(OPT_EXPORT_NAME, "nope".getBytes(StandardCharsets.UTF_8), 0).bytes(); // must hang up
            case 3 -> truncated(option(OPT_LIST, randomBytes(100), 0).bytes()); // then the stream ends
            default -> null;
        };
    }

    private int unknownOptionNumber() {
        int[] known = {OPT_EXPORT_NAME, OPT_ABORT, OPT_LIST, OPT_STARTTLS, OPT_INFO, OPT_GO, OPT_STRUCTURED_REPLY,
            OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT};
        while (true) {
            int candidate = prng.chance(0.5) ? prng.nextInt(64) : (int) prng.nextLong();
            if (java.util.Arrays.stream(known).noneMatch(k -> k == candidate)) {
                return candidate;
            }
        }
    }

    static Option option(int option, byte[] data, int expectedFinal) {
        byte[] bytes = ByteBuffer.allocate(16 + data.length).putLong(OPTION_MAGIC).putInt(option)
                .putInt(data.length).put(data).array();
        return new Option(bytes, option, expectedFinal);
    }

    static byte[] info(String name) {
        return NbdTestClient.infoData(name);
    }

    // ---- transmission ----

    /** A request the server must refuse with a known error, and that writes nothing. */
    Request badRequest(boolean structured, boolean contexts) {
        long handle = nextHandle++;
        return switch (prng.nextInt(8)) {
            case 0 -> badFlags(handle, structured);
            case 1 -> outOfRange(handle, contexts);
            case 2 -> request(handle, 0, 8 + prng.nextInt(0xFFF8), prng.nextLong(volumeBytes), prng.nextInt(4096),
                    null, EINVAL); // unknown command
            case 3 -> request(handle, CMD_FLAG_FAST_ZERO | (prng.chance(0.5) ? CMD_FLAG_FUA : 0), CMD_WRITE_ZEROES,
                    prng.nextLong(volumeBytes), 1 + prng.nextInt(1 << 20), null, ENOTSUP);
            case 4 -> request(handle, 0, CMD_READ, prng.nextLong(volumeBytes),
                    Connection.REQUEST_BYTES_MAX + 1 + prng.nextLong(0xFFFF_FFFFL - Connection.REQUEST_BYTES_MAX),
                    null, EINVAL); // too long
            case 5 -> contexts ? request(handle, 0, CMD_BLOCK_STATUS, 0, 0, null, EINVAL) // zero length
                    : request(handle, 0, CMD_BLOCK_STATUS, prng.nextLong(volumeBytes), 1 + prng.nextInt(1 << 20),
                    null, EINVAL); // no context selected
            case 6 -> structured ? badFlags(handle, true)
                    : request(handle, CMD_FLAG_DF, CMD_READ, 0, 512, null, EINVAL); // DF needs structured replies
            default -> outOfRange(handle, contexts);
        };
    }

    private Request badFlags(long handle, boolean structured) {
        int[] types = {CMD_READ, CMD_WRITE, CMD_FLUSH, CMD_TRIM, CMD_CACHE, CMD_WRITE_ZEROES, CMD_BLOCK_STATUS};
        int type = types[prng.nextInt(types.length)];
        int allowed = RequestCheck.allowedFlags(type, structured);
        int flags;
        do {
            flags = prng.nextInt(1 << 16);
        } while ((flags & ~allowed) == 0);
        long length = 1 + prng.nextInt(PAYLOAD_BYTES_MAX);
        byte[] payload = type == CMD_WRITE ? randomBytes((int) length) : null;
        return request(handle, flags, type, prng.nextLong(volumeBytes - length), length, payload, EINVAL);
    }

    private Request outOfRange(long handle, boolean contexts) {
        int[] types = {CMD_READ, CMD_WRITE, CMD_TRIM, CMD_CACHE, CMD_WRITE_ZEROES, CMD_BLOCK_STATUS};
        int type = types[prng.nextInt(contexts ? types.length : types.length - 1)];
        boolean large = type == CMD_READ && prng.nextInt(LARGE_READ_ONE_IN) == 0;
        long length = large ? 1 + prng.nextInt(Connection.REQUEST_BYTES_MAX)
                : 1 + prng.nextInt(type == CMD_WRITE ? PAYLOAD_BYTES_MAX : READ_BYTES_MAX);
        long offset = switch (prng.nextInt(3)) {
            case 0 -> volumeBytes - length + 1 + prng.nextLong(length); // runs over the end
            case 1 -> -1L - prng.nextLong(Long.MAX_VALUE); // "negative": beyond 2^63 as unsigned
            default -> Long.MAX_VALUE - prng.nextLong(length); // offset + length overflows
        };
        byte[] payload = type == CMD_WRITE ? randomBytes((int) length) : null;
        int error = type == CMD_WRITE || type == CMD_WRITE_ZEROES ? ENOSPC : EINVAL;
        return request(handle, 0, type, offset, length, payload, error);
    }

    /** A transmission frame after which the server must close the connection, or null for DISC. */
    byte[] transmissionKiller() {
        long offset = prng.nextLong(volumeBytes / 2); // inside the region that must stay as it is
        return switch (prng.nextInt(6)) {
            case 0 -> wrongMagic(request(0, 0, CMD_READ, 0, 512, null, 0).bytes());
            case 1 -> truncated(request(0, 0, CMD_FLUSH, 0, 0, null, 0).bytes()); // then the stream ends
            case 2 -> truncated(request(0, 0, CMD_WRITE, offset, 4096, randomBytes(4096), 0).bytes()); // payload cut
            case 3 -> request(0, 0, CMD_WRITE, offset, Connection.REFUSED_PAYLOAD_BYTES_MAX + 1
                    + prng.nextLong(1 << 20), null, 0).bytes(); // too long even to skip
            case 4 -> wrongMagic(randomBytes(REQUEST_HEADER_BYTES + prng.nextInt(64))); // noise
            default -> null;
        };
    }

    private byte[] wrongMagic(byte[] frame) {
        int magic = ByteBuffer.wrap(frame).getInt(0);
        if (magic == REQUEST_MAGIC || prng.chance(0.5)) {
            ByteBuffer.wrap(frame).putInt(0, REQUEST_MAGIC ^ (1 << prng.nextInt(32)));
        }
        return frame;
    }

    /** A request for DISC. */
    static byte[] disconnect() {
        return request(0, 0, CMD_DISC, 0, 0, null, 0).bytes();
    }

    static Request request(long handle, int flags, int type, long offset, long length, byte[] payload, int error) {
        int payloadBytes = payload == null ? 0 : payload.length;
        ByteBuffer frame = ByteBuffer.allocate(REQUEST_HEADER_BYTES + payloadBytes).putInt(REQUEST_MAGIC)
                .putShort((short) flags).putShort((short) type).putLong(handle).putLong(offset)
                .putInt((int) length);
        if (payload != null) {
            frame.put(payload);
        }
        return new Request(frame.array(), handle, error);
    }

    private byte[] truncated(byte[] frame) {
        return java.util.Arrays.copyOf(frame, prng.nextInt(frame.length));
    }

    private byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        prng.nextBytes(bytes);
        return bytes;
    }
}

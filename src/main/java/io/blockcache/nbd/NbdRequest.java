package io.blockcache.nbd;

/**
 * One transmission-phase request header (the payload of a WRITE follows it on the wire).
 *
 * @param flags command flags (NbdProtocol.CMD_FLAG_*)
 * @param type command (NbdProtocol.CMD_*)
 * @param handle the client's cookie, echoed in every reply
 * @param offsetBytes the offset; the wire field is unsigned 64 bits, so a negative value here means
 *     an offset at or beyond 2^63 bytes (always out of range)
 * @param lengthBytes the length, unsigned 32 bits on the wire: 0 .. 2^32-1
 */
public record NbdRequest(int flags, int type, long handle, long offsetBytes, long lengthBytes)
        implements RequestHeader {
    /** True if {@code flags} has every bit of {@code flag}. */
    @Override
    public boolean has(int flag) {
        return (flags & flag) == flag;
    }
}

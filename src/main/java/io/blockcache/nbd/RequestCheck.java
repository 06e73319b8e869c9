package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

/**
 * Decides, from a request header and its session alone, whether the request must be refused, and with which
 * error: unknown flags or command, FAST_ZERO, BLOCK_STATUS without a context or of zero bytes, a range outside
 * the export (EINVAL for READ, TRIM, CACHE and BLOCK_STATUS; ENOSPC for WRITE and WRITE_ZEROES, the spec's
 * advice). The connection's reader asks before it takes any buffer or budget for a request, so a refused request
 * costs no memory and never reaches the loop; {@link CommandExecutor} carries out only what passed.
 *
 * <p>FAST_ZERO is always refused with ENOTSUP: write-zeroes writes zeroes to the backing device in 1 MiB pieces,
 * which is not faster than a write, so the client is better off falling back at once.
 *
 * <p>Thread rule: any thread (pure; an export's size never changes while it is served).
 */
final class RequestCheck {
    /** Why a request is refused: the NBD error value and a message for structured replies and the log. */
    record Refusal(int error, String message) {
    }

    private RequestCheck() {
    }

    /** Flags each command may carry (any other bit is EINVAL); READ may carry DF only when structured. */
    static int allowedFlags(int type, boolean structuredReplies) {
        return CMD_FLAG_FUA | switch (type) {
            case CMD_READ -> structuredReplies ? CMD_FLAG_DF : 0;
            case CMD_WRITE_ZEROES -> CMD_FLAG_NO_HOLE | CMD_FLAG_FAST_ZERO;
            case CMD_BLOCK_STATUS -> CMD_FLAG_REQ_ONE;
            default -> 0;
        };
    }

    /** The refusal for this request, or null if it may be carried out. DISC is the reader's and never asked. */
    static Refusal refusal(RequestHeader header, Session session) {
        int unknown = header.flags() & ~allowedFlags(header.type(), session.structuredReplies());
        if (unknown != 0) {
            return new Refusal(EINVAL, "flags 0x" + Integer.toHexString(unknown) + " are not valid for command "
                    + header.type());
        }
        return switch (header.type()) {
            case CMD_READ, CMD_TRIM, CMD_CACHE -> range(header, session, EINVAL);
            case CMD_WRITE -> range(header, session, ENOSPC);
            case CMD_WRITE_ZEROES -> header.has(CMD_FLAG_FAST_ZERO)
                    ? new Refusal(ENOTSUP, "zeroing is not faster than writing on this server")
                    : range(header, session, ENOSPC);
            case CMD_FLUSH -> null;
            case CMD_BLOCK_STATUS -> session.contexts().isEmpty()
                    ? new Refusal(EINVAL, "BLOCK_STATUS needs a metadata context set with NBD_OPT_SET_META_CONTEXT")
                    : header.lengthBytes() == 0 ? new Refusal(EINVAL, "BLOCK_STATUS of zero bytes")
                    : range(header, session, EINVAL);
            default -> new Refusal(EINVAL, "unknown command " + header.type());
        };
    }

    /** {@code error} if the request's range is not inside the export, else null. */
    private static Refusal range(RequestHeader header, Session session, int error) {
        long offsetBytes = header.offsetBytes();
        long lengthBytes = header.lengthBytes();
        long sizeBytes = session.export().volume().sizeBytes();
        if (offsetBytes >= 0 && lengthBytes <= sizeBytes && offsetBytes <= sizeBytes - lengthBytes) {
            return null;
        }
        return new Refusal(error, "range [" + Long.toUnsignedString(offsetBytes) + ", +" + lengthBytes
                + ") is outside the export of " + sizeBytes + " bytes");
    }
}

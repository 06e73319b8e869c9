package io.blockcache.backing;

import io.blockcache.nbd.NbdProtocol;

/**
 * What the server said about an export in the handshake.
 *
 * @param sizeBytes export size in bytes
 * @param transmissionFlags the 16-bit transmission flags ({@code NbdProtocol.FLAG_*})
 * @param structuredReplies whether the server agreed to structured replies (NBD_OPT_STRUCTURED_REPLY)
 * @param blockBytesMin the minimum block size (1 if the server did not say)
 * @param payloadBytesMax the largest request payload the server accepts (32 MiB if it did not say: without
 *     advertised limits, doc/proto.md says a client should not send more)
 */
public record NbdExportInfo(long sizeBytes, int transmissionFlags, boolean structuredReplies, int blockBytesMin,
        int payloadBytesMax) {
    /** doc/proto.md: without NBD_INFO_BLOCK_SIZE a client should keep payloads at or below 32 MiB. */
    static final int PAYLOAD_BYTES_DEFAULT = 32 << 20;

    /** True if the export has transmission flag {@code flag}. */
    public boolean has(int flag) {
        return (transmissionFlags & flag) != 0;
    }

    /** True if the server says flushes on one connection cover writes completed on all (NBD_FLAG_CAN_MULTI_CONN). */
    public boolean multiConn() {
        return has(NbdProtocol.FLAG_CAN_MULTI_CONN);
    }
}

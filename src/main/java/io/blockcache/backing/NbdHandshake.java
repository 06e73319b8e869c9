package io.blockcache.backing;

import io.blockcache.nbd.NbdProtocol;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The client side of the fixed newstyle handshake (doc/proto.md "Fixed newstyle negotiation"): asks for
 * structured replies, then NBD_OPT_GO with the export name and a request for block-size information.
 * Blocking, on a fresh socket's streams; the caller sets read timeouts.
 *
 * <p>Every refusal is an {@link IOException} with a one-line message that names the export and what the
 * server said, so that a missing export or a server that is not NBD reads as such at start-up.
 */
final class NbdHandshake {
    /** Option replies we read for one option at most: a server listing infos forever is broken. */
    private static final int REPLIES_PER_OPTION_MAX = 64;
    /** Largest option reply payload we accept (doc/proto.md bounds strings by 4096; infos are tiny). */
    private static final int REPLY_BYTES_MAX = 64 * 1024;

    private NbdHandshake() {
    }

    /** Negotiates {@code exportName} on a connected socket's streams and returns what the server offered. */
    static NbdExportInfo negotiate(DataInputStream in, DataOutputStream out, NbdUri uri) throws IOException {
        long magic = in.readLong();
        long optionMagic = in.readLong();
        if (magic != NbdProtocol.INIT_MAGIC || optionMagic != NbdProtocol.OPTION_MAGIC) {
            throw new IOException(uri + ": not an NBD newstyle server (greeting " + Long.toHexString(magic) + " "
                    + Long.toHexString(optionMagic) + ")");
        }
        int serverFlags = in.readUnsignedShort();
        if ((serverFlags & NbdProtocol.FLAG_FIXED_NEWSTYLE) == 0) {
            throw new IOException(uri + ": the server does not speak fixed newstyle negotiation");
        }
        int clientFlags = NbdProtocol.CLIENT_FLAG_FIXED_NEWSTYLE
                | ((serverFlags & NbdProtocol.FLAG_NO_ZEROES) != 0 ? NbdProtocol.CLIENT_FLAG_NO_ZEROES : 0);
        out.writeInt(clientFlags);
        boolean structured = structuredReplies(in, out, uri);
        return go(in, out, uri, structured);
    }

    private static boolean structuredReplies(DataInputStream in, DataOutputStream out, NbdUri uri)
            throws IOException {
        sendOption(out, NbdProtocol.OPT_STRUCTURED_REPLY, new byte[0]);
        Reply reply = readReply(in, NbdProtocol.OPT_STRUCTURED_REPLY, uri);
        return reply.type == NbdProtocol.REP_ACK; // ERR_UNSUP: simple replies it is
    }

    private static NbdExportInfo go(DataInputStream in, DataOutputStream out, NbdUri uri, boolean structured)
            throws IOException {
        byte[] name = uri.exportName().getBytes(StandardCharsets.UTF_8);
        ByteBuffer data = ByteBuffer.allocate(4 + name.length + 2 + 2);
        data.putInt(name.length).put(name).putShort((short) 1).putShort((short) NbdProtocol.INFO_BLOCK_SIZE);
        sendOption(out, NbdProtocol.OPT_GO, data.array());
        long sizeBytes = -1;
        int flags = 0;
        int blockMin = 1;
        int payloadMax = NbdExportInfo.PAYLOAD_BYTES_DEFAULT;
        for (int i = 0; i < REPLIES_PER_OPTION_MAX; i++) {
            Reply reply = readReply(in, NbdProtocol.OPT_GO, uri);
            if (reply.type == NbdProtocol.REP_ACK) {
                if (sizeBytes < 0) {
                    throw new IOException(uri + ": the server finished NBD_OPT_GO without NBD_INFO_EXPORT");
                }
                return new NbdExportInfo(sizeBytes, flags, structured, blockMin, payloadMax);
            }
            if (reply.type != NbdProtocol.REP_INFO || reply.data.length < 2) {
                throw new IOException(uri + ": unexpected reply " + reply.type + " to NBD_OPT_GO");
            }
            ByteBuffer info = ByteBuffer.wrap(reply.data);
            int infoType = info.getShort() & 0xFFFF;
            if (infoType == NbdProtocol.INFO_EXPORT && reply.data.length >= 12) {
                sizeBytes = info.getLong();
                flags = info.getShort() & 0xFFFF;
            } else if (infoType == NbdProtocol.INFO_BLOCK_SIZE && reply.data.length >= 14) {
                blockMin = info.getInt();
                info.getInt(); // preferred size: the engine already writes 4 KiB multiples
                payloadMax = (int) Math.min(Integer.MAX_VALUE, info.getInt() & 0xFFFFFFFFL);
            }
        }
        throw new IOException(uri + ": more than " + REPLIES_PER_OPTION_MAX + " replies to NBD_OPT_GO");
    }

    private static void sendOption(DataOutputStream out, int option, byte[] data) throws IOException {
        out.writeLong(NbdProtocol.OPTION_MAGIC);
        out.writeInt(option);
        out.writeInt(data.length);
        out.write(data);
        out.flush();
    }

    private record Reply(int type, byte[] data) {
    }

    private static Reply readReply(DataInputStream in, int option, NbdUri uri) throws IOException {
        long magic = in.readLong();
        int repliedOption = in.readInt();
        int type = in.readInt();
        int length = in.readInt();
        if (magic != NbdProtocol.OPTION_REPLY_MAGIC || repliedOption != option) {
            throw new IOException(uri + ": malformed option reply (magic " + Long.toHexString(magic) + ", option "
                    + repliedOption + ", expected " + option + ")");
        }
        if (length < 0 || length > REPLY_BYTES_MAX) {
            throw new IOException(uri + ": option reply of " + (length & 0xFFFFFFFFL) + " bytes is too long");
        }
        byte[] data = new byte[length];
        in.readFully(data);
        if (type < 0 && option == NbdProtocol.OPT_STRUCTURED_REPLY) {
            return new Reply(type, data); // refused: the caller falls back to simple replies
        }
        if (type < 0) {
            String said = new String(data, StandardCharsets.UTF_8).strip();
            String what = type == NbdProtocol.REP_ERR_UNKNOWN ? "the server has no export named \""
                    + uri.exportName() + "\"" : "the server refused export \"" + uri.exportName() + "\" (error "
                    + (type & 0x7FFFFFFF) + ")";
            throw new IOException(uri + ": " + what + (said.isEmpty() ? "" : ": " + said.replace('\n', ' ')));
        }
        return new Reply(type, data);
    }
}

package io.blockcache.nbd;

/**
 * The numbers of the NBD protocol (doc/proto.md of the reference NBD project): magics, handshake and
 * transmission flags, options, option replies, commands, command flags, reply chunk types and error values.
 * Only the values this server speaks are listed. Pure constants: any thread.
 */
public final class NbdProtocol {
    private NbdProtocol() {
    }

    /** ASCII "NBDMAGIC": first 8 bytes the server sends. */
    public static final long INIT_MAGIC = 0x4e42444d41474943L;
    /** ASCII "IHAVEOPT": newstyle magic, also the prefix of every option the client sends. */
    public static final long OPTION_MAGIC = 0x49484156454F5054L;
    /** Prefix of every option reply. */
    public static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
    /** Prefix of every transmission request. */
    public static final int REQUEST_MAGIC = 0x25609513;
    /** Prefix of a simple reply. */
    public static final int SIMPLE_REPLY_MAGIC = 0x67446698;
    /** Prefix of a structured reply chunk. */
    public static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;

    // Handshake flags (server, 16 bits) and client flags (32 bits).
    public static final int FLAG_FIXED_NEWSTYLE = 1;
    public static final int FLAG_NO_ZEROES = 1 << 1;
    public static final int CLIENT_FLAG_FIXED_NEWSTYLE = 1;
    public static final int CLIENT_FLAG_NO_ZEROES = 1 << 1;

    // Transmission flags (16 bits).
    public static final int FLAG_HAS_FLAGS = 1;
    public static final int FLAG_READ_ONLY = 1 << 1;
    public static final int FLAG_SEND_FLUSH = 1 << 2;
    public static final int FLAG_SEND_FUA = 1 << 3;
    public static final int FLAG_ROTATIONAL = 1 << 4;
    public static final int FLAG_SEND_TRIM = 1 << 5;
    public static final int FLAG_SEND_WRITE_ZEROES = 1 << 6;
    public static final int FLAG_SEND_DF = 1 << 7;
    public static final int FLAG_CAN_MULTI_CONN = 1 << 8;
    public static final int FLAG_SEND_CACHE = 1 << 10;
    public static final int FLAG_SEND_FAST_ZERO = 1 << 11;

    // Options.
    public static final int OPT_EXPORT_NAME = 1;
    public static final int OPT_ABORT = 2;
    public static final int OPT_LIST = 3;
    public static final int OPT_STARTTLS = 5;
    public static final int OPT_INFO = 6;
    public static final int OPT_GO = 7;
    public static final int OPT_STRUCTURED_REPLY = 8;
    // 9..11 as in current proto.md, libnbd and qemu (an old proto.md draft numbered them 10..12).
    public static final int OPT_LIST_META_CONTEXT = 9;
    public static final int OPT_SET_META_CONTEXT = 10;
    public static final int OPT_EXTENDED_HEADERS = 11;

    // Option reply types; errors have bit 31 set.
    public static final int REP_ACK = 1;
    public static final int REP_SERVER = 2;
    public static final int REP_INFO = 3;
    public static final int REP_META_CONTEXT = 4;
    public static final int REP_ERR_UNSUP = 0x80000001;
    public static final int REP_ERR_POLICY = 0x80000002;
    public static final int REP_ERR_INVALID = 0x80000003;
    public static final int REP_ERR_TLS_REQD = 0x80000005;
    public static final int REP_ERR_UNKNOWN = 0x80000006;

    // NBD_REP_INFO item types.
    public static final int INFO_EXPORT = 0;
    public static final int INFO_NAME = 1;
    public static final int INFO_DESCRIPTION = 2;
    public static final int INFO_BLOCK_SIZE = 3;

    // Commands.
    public static final int CMD_READ = 0;
    public static final int CMD_WRITE = 1;
    public static final int CMD_DISC = 2;
    public static final int CMD_FLUSH = 3;
    public static final int CMD_TRIM = 4;
    public static final int CMD_CACHE = 5;
    public static final int CMD_WRITE_ZEROES = 6;
    public static final int CMD_BLOCK_STATUS = 7;

    // Command flags.
    public static final int CMD_FLAG_FUA = 1;
    public static final int CMD_FLAG_NO_HOLE = 1 << 1;
    public static final int CMD_FLAG_DF = 1 << 2;
    public static final int CMD_FLAG_REQ_ONE = 1 << 3;
    public static final int CMD_FLAG_FAST_ZERO = 1 << 4;

    // Structured reply flags and chunk types.
    public static final int REPLY_FLAG_DONE = 1;
    public static final int REPLY_TYPE_NONE = 0;
    public static final int REPLY_TYPE_OFFSET_DATA = 1;
    public static final int REPLY_TYPE_BLOCK_STATUS = 5;
    public static final int REPLY_TYPE_ERROR = 0x8001;

    // Error values.
    public static final int EPERM = 1;
    public static final int EIO = 5;
    public static final int ENOMEM = 12;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int EOVERFLOW = 75;
    public static final int ENOTSUP = 95;
    public static final int ESHUTDOWN = 108;

    /** Sizes of fixed frames, in bytes. */
    public static final int REQUEST_HEADER_BYTES = 28;
    public static final int OPTION_HEADER_BYTES = 16;
    public static final int SIMPLE_REPLY_HEADER_BYTES = 16;
    public static final int STRUCTURED_HEADER_BYTES = 20;

    /** The longest string the spec allows (export names, messages): 4096 bytes. */
    public static final int STRING_BYTES_MAX = 4096;
}

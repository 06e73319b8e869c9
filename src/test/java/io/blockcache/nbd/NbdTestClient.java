package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.BufferedInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small blocking NBD client for tests: raw frames, plus handshake and command helpers on top. Public for the
 * process-level tests of other packages (interop.ProcessFuzz), which drive {@code serve} over it. Thread rule: one
 * thread per client.
 */
public final class NbdTestClient implements AutoCloseable {
    record OptionReply(int option, int type, byte[] data) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /** One BLOCK_STATUS descriptor. */
    record Extent(long lengthBytes, int status) {
    }

    /** A whole reply to one request. */
    public record Reply(long handle, int error, String message, byte[] data, Map<Integer, List<Extent>> status,
                 boolean structured) {
    }

    /** Layers a TLS client over the connected socket once the server acknowledged STARTTLS. */
    interface TlsUpgrade {
        TlsStreams upgrade(Socket socket) throws IOException;
    }

    /** A TLS session's plaintext streams. */
    record TlsStreams(java.io.InputStream in, java.io.OutputStream out) {
    }

    final Socket socket;
    DataInputStream in;
    DataOutputStream out;
    long sizeBytes;
    int transmissionFlags;
    boolean structured;
    private final Map<Long, Long> pendingReadLengths = new HashMap<>();
    private final Map<Long, ByteArrayOutputStream> partialData = new HashMap<>();
    private final Map<Long, Map<Integer, List<Extent>>> partialStatus = new HashMap<>();
    private long nextHandle = 1;
    private boolean greeted;

    public NbdTestClient(InetSocketAddress address) throws IOException {
        this(address, null, 0);
    }

    /**
     * @param localAddress the address to connect from (another 127.x address looks like another client), or null
     * @param receiveBufferBytes the socket's receive buffer, or 0 for the system's default
     */
    NbdTestClient(InetSocketAddress address, java.net.InetAddress localAddress, int receiveBufferBytes)
            throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(address);
        socket.setSoTimeout(20_000); // a hung server fails the test instead of hanging it
        socket.setTcpNoDelay(true);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(socket.getOutputStream());
    }

    // ---- handshake ----

    /** Reads the greeting and sends client flags. */
    NbdTestClient hello(int clientFlags) throws IOException {
        greeted = true;
        if (in.readLong() != INIT_MAGIC || in.readLong() != OPTION_MAGIC) {
            throw new IOException("bad greeting");
        }
        int flags = in.readUnsignedShort();
        if (flags != (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES)) {
            throw new IOException("unexpected handshake flags " + flags);
        }
        out.writeInt(clientFlags);
        return this;
    }

    NbdTestClient hello() throws IOException {
        return hello(CLIENT_FLAG_FIXED_NEWSTYLE | CLIENT_FLAG_NO_ZEROES);
    }

    void sendOption(int option, byte[] data) throws IOException {
        out.writeLong(OPTION_MAGIC);
        out.writeInt(option);
        out.writeInt(data.length);
        out.write(data);
        out.flush();
    }

    OptionReply readOptionReply() throws IOException {
        long magic = in.readLong();
        if (magic != OPTION_REPLY_MAGIC) {
            throw new IOException("bad option reply magic " + Long.toHexString(magic));
        }
        int option = in.readInt();
        int type = in.readInt();
        byte[] data = new byte[in.readInt()];
        in.readFully(data);
        return new OptionReply(option, type, data);
    }

    /** Sends NBD_OPT_STARTTLS; on ACK runs {@code upgrade} and speaks through the TLS session from then on. */
    OptionReply startTls(TlsUpgrade upgrade) throws IOException {
        sendOption(OPT_STARTTLS, new byte[0]);
        OptionReply reply = readOptionReply();
        if (reply.type() == REP_ACK) {
            TlsStreams session = upgrade.upgrade(socket);
            in = new DataInputStream(new BufferedInputStream(session.in()));
            out = new DataOutputStream(new java.io.BufferedOutputStream(session.out()));
        }
        return reply;
    }

    /** Sends an option and reads replies up to and including the final one (ACK or an error). */
    List<OptionReply> option(int option, byte[] data) throws IOException {
        sendOption(option, data);
        List<OptionReply> replies = new ArrayList<>();
        while (true) {
            OptionReply reply = readOptionReply();
            replies.add(reply);
            if (reply.type() == REP_ACK || reply.type() < 0) {
                return replies;
            }
        }
    }

    static byte[] infoData(String name, int... infos) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer data = ByteBuffer.allocate(4 + bytes.length + 2 + 2 * infos.length).putInt(bytes.length)
                .put(bytes).putShort((short) infos.length);
        for (int info : infos) {
            data.putShort((short) info);
        }
        return data.array();
    }

    static byte[] metaData(String name, String... queries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(bytes);
        try {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            data.writeInt(n.length);
            data.write(n);
            data.writeInt(queries.length);
            for (String query : queries) {
                byte[] q = query.getBytes(StandardCharsets.UTF_8);
                data.writeInt(q.length);
                data.write(q);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** Handshake (greeting unless done) with GO: optional structured replies and metadata contexts. */
    public NbdTestClient go(String export, boolean structuredReplies, String... contexts) throws IOException {
        if (!greeted) {
            hello();
        }
        if (structuredReplies) {
            expectAck(option(OPT_STRUCTURED_REPLY, new byte[0]));
            structured = true;
            if (contexts.length > 0) {
                expectAck(option(OPT_SET_META_CONTEXT, metaData(export, contexts)));
            }
        }
        List<OptionReply> replies = option(OPT_GO, infoData(export));
        expectAck(replies);
        for (OptionReply reply : replies) {
            ByteBuffer data = ByteBuffer.wrap(reply.data());
            if (reply.type() == REP_INFO && data.getShort() == INFO_EXPORT) {
                sizeBytes = data.getLong();
                transmissionFlags = data.getShort() & 0xFFFF;
            }
        }
        return this;
    }

    private static void expectAck(List<OptionReply> replies) throws IOException {
        OptionReply last = replies.get(replies.size() - 1);
        if (last.type() != REP_ACK) {
            throw new IOException("option " + last.option() + " failed: " + last.type() + " " + last.text());
        }
    }

    /** Sets how long a read of the socket may wait (20 s by default) before it fails; returns this. */
    public NbdTestClient readTimeoutMs(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        return this;
    }

    /** The export's size in bytes, as GO's INFO_EXPORT reply gave it (0 before {@link #go}). */
    public long exportSizeBytes() {
        return sizeBytes;
    }

    // ---- transmission ----

    long send(int flags, int type, long offset, long length, byte[] payload) throws IOException {
        long handle = nextHandle++;
        sendWithHandle(handle, flags, type, offset, length, payload);
        return handle;
    }

    void sendWithHandle(long handle, int flags, int type, long offset, long length, byte[] payload)
            throws IOException {
        if (type == CMD_READ) {
            pendingReadLengths.put(handle, length);
        }
        ByteBuffer header = ByteBuffer.allocate(REQUEST_HEADER_BYTES).putInt(REQUEST_MAGIC).putShort((short) flags)
                .putShort((short) type).putLong(handle).putLong(offset).putInt((int) length);
        out.write(header.array());
        if (payload != null) {
            out.write(payload);
        }
        out.flush();
    }

    /** Reads messages until some request's reply is complete, and returns it. */
    Reply readReply() throws IOException {
        while (true) {
            int magic = in.readInt();
            if (magic == SIMPLE_REPLY_MAGIC) {
                int error = in.readInt();
                long handle = in.readLong();
                Long readLength = pendingReadLengths.remove(handle);
                byte[] data = new byte[0];
                if (readLength != null && error == 0) {
                    data = new byte[(int) (long) readLength];
                    in.readFully(data);
                }
                return new Reply(handle, error, "", data, Map.of(), false);
            }
            if (magic != STRUCTURED_REPLY_MAGIC) {
                throw new IOException("bad reply magic " + Integer.toHexString(magic));
            }
            int flags = in.readUnsignedShort();
            int type = in.readUnsignedShort();
            long handle = in.readLong();
            byte[] payload = new byte[in.readInt()];
            in.readFully(payload);
            ByteBuffer chunk = ByteBuffer.wrap(payload);
            ByteArrayOutputStream data = partialData.computeIfAbsent(handle, h -> new ByteArrayOutputStream());
            Map<Integer, List<Extent>> status = partialStatus.computeIfAbsent(handle, h -> new HashMap<>());
            int error = 0;
            String message = "";
            if (type == REPLY_TYPE_OFFSET_DATA) {
                chunk.getLong();
                data.write(payload, 8, payload.length - 8);
            } else if (type == REPLY_TYPE_BLOCK_STATUS) {
                List<Extent> extents = new ArrayList<>();
                int contextId = chunk.getInt();
                while (chunk.hasRemaining()) {
                    extents.add(new Extent(Integer.toUnsignedLong(chunk.getInt()), chunk.getInt()));
                }
                status.put(contextId, extents);
            } else if (type == REPLY_TYPE_ERROR) {
                error = chunk.getInt();
                byte[] text = new byte[chunk.getShort()];
                chunk.get(text);
                message = new String(text, StandardCharsets.UTF_8);
            } else if (type != REPLY_TYPE_NONE) {
                throw new IOException("unexpected chunk type " + type);
            }
            if ((flags & REPLY_FLAG_DONE) != 0) {
                pendingReadLengths.remove(handle);
                partialData.remove(handle);
                partialStatus.remove(handle);
                return new Reply(handle, error, message, data.toByteArray(), status, true);
            }
        }
    }

    /** Sends one request and waits for its reply (nothing else may be in flight). */
    public Reply call(int flags, int type, long offset, long length, byte[] payload) throws IOException {
        long handle = send(flags, type, offset, length, payload);
        Reply reply = readReply();
        if (reply.handle() != handle) {
            throw new IOException("reply for handle " + reply.handle() + ", expected " + handle);
        }
        return reply;
    }

    byte[] read(long offset, int length) throws IOException {
        Reply reply = call(0, CMD_READ, offset, length, null);
        if (reply.error() != 0) {
            throw new IOException("read failed with " + reply.error() + " " + reply.message());
        }
        return reply.data();
    }

    int write(long offset, byte[] data, int flags) throws IOException {
        return call(flags, CMD_WRITE, offset, data.length, data).error();
    }

    void disconnect() throws IOException {
        send(0, CMD_DISC, 0, 0, null);
    }

    /** True once the server has closed the connection (reads end of stream). */
    public boolean serverClosed() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException | java.net.SocketException e) {
            return true;
        }
    }

    /**
     * Reads the raw socket (under any TLS) to its end, dropping what comes (a TLS alert, say): returns once the
     * server has closed the connection, so whatever it counts before closing is counted. Bounded by the socket's
     * read timeout.
     */
    void awaitServerClose() throws IOException {
        try {
            socket.getInputStream().readAllBytes();
        } catch (java.net.SocketTimeoutException e) {
            throw e;
        } catch (java.net.SocketException e) {
            // reset by the server: closed as well
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

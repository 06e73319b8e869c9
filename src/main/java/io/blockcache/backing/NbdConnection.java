package io.blockcache.backing;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.nbd.NbdProtocol;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One TCP connection to an NBD server in transmission phase: a sender thread writes queued requests, a reader
 * thread reads replies (simple or structured) and completes the request each one names by its cookie. Many
 * requests are in flight at once; replies may come in any order.
 *
 * <p>When the socket breaks (an I/O error, end of stream, a reply that makes no sense) the connection tells its
 * owner once ({@link BreakListener}); the owner then {@link #abort()}s it, which hands back every request still
 * waiting for a reply. Thread rule: {@link #send} from any thread; the rest is the connection's own threads.
 */
final class NbdConnection {
    /** Requests queued for the sender at most; the engine bounds its own in-flight I/O far below this. */
    static final int QUEUED_REQUESTS_MAX = 65_536;
    /** Socket buffer for the sender and the reader: several 4 KiB requests per system call. */
    private static final int STREAM_BUFFER_BYTES = 256 * 1024;
    /** Bytes copied between the stream and a request's buffer per step. */
    private static final int COPY_CHUNK_BYTES = 64 * 1024;
    /** How long connecting and the handshake may take before the server counts as unreachable. */
    static final int CONNECT_TIMEOUT_MS = 5_000;
    /** doc/proto.md: NBD_REPLY_TYPE_OFFSET_HOLE = 2, NBD_REPLY_TYPE_ERROR_OFFSET = 2^15 + 2. */
    private static final int REPLY_TYPE_OFFSET_HOLE = 2;
    private static final int REPLY_TYPE_ERROR_OFFSET = 0x8002;
    /** Error chunk messages are strings (at most 4096 bytes by the spec); longer ones break the protocol. */
    private static final int ERROR_MESSAGE_BYTES_MAX = 4096;

    /** Tells the sender to exit; never sent. */
    private static final NbdCommand STOP = new NbdCommand(null, -1, 0, 0, 0, null, null, null, 0);

    /** Told once when the connection broke. */
    @FunctionalInterface
    interface BreakListener {
        void broken(NbdConnection connection, String why);
    }

    private final NbdUri uri;
    private final String name;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final NbdExportInfo info;
    private final BreakListener listener;
    private final LinkedBlockingQueue<NbdCommand> queue = new LinkedBlockingQueue<>(QUEUED_REQUESTS_MAX);
    private final ConcurrentHashMap<Long, NbdCommand> inFlight = new ConcurrentHashMap<>();
    private final AtomicBoolean broken = new AtomicBoolean();
    private final Thread sender;
    private final Thread reader;
    private long nextCookie = 1; // guarded by this
    private boolean aborted; // guarded by this

    private NbdConnection(NbdUri uri, String name, Socket socket, DataInputStream in, DataOutputStream out,
            NbdExportInfo info, BreakListener listener) {
        this.uri = uri;
        this.name = name;
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.info = info;
        this.listener = listener;
        this.sender = Thread.ofPlatform().daemon().name("nbd-send-" + name).unstarted(this::sendLoop);
        this.reader = Thread.ofPlatform().daemon().name("nbd-read-" + name).unstarted(this::readLoop);
    }

    /**
     * Connects to {@code uri} and negotiates its export; blocking, at most {@link #CONNECT_TIMEOUT_MS} for the
     * connect and for each handshake read. The threads start with {@link #start()}.
     *
     * @throws IOException with a one-line message naming the URI when the server is unreachable, not NBD, or
     *     has no such export
     */
    static NbdConnection open(NbdUri uri, int index, BreakListener listener) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(uri.host(), uri.port()), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout(CONNECT_TIMEOUT_MS);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(),
                    STREAM_BUFFER_BYTES));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(),
                    STREAM_BUFFER_BYTES));
            NbdExportInfo info = NbdHandshake.negotiate(in, out, uri);
            socket.setSoTimeout(0); // transmission: a slow server is not a dead one (TCP keepalive finds those)
            socket.setKeepAlive(true);
            return new NbdConnection(uri, name(uri, index), socket, in, out, info, listener);
        } catch (IOException e) {
            socket.close();
            String message = e.getMessage() != null && e.getMessage().startsWith(uri.toString()) ? e.getMessage()
                    : uri + ": cannot connect: " + e;
            throw new IOException(message, e);
        }
    }

    private static String name(NbdUri uri, int index) {
        return index + " " + uri.host() + ":" + uri.port();
    }

    /** What the server said about the export on this connection. */
    NbdExportInfo info() {
        return info;
    }

    /** Starts the sender and reader threads; idempotent. */
    synchronized void start() {
        if (sender.getState() == Thread.State.NEW) {
            sender.start();
            reader.start();
        }
    }

    /** True once the socket broke or the connection was aborted. */
    boolean isBroken() {
        return broken.get();
    }

    /**
     * Queues {@code command}; returns false (and does nothing) if the connection is already aborted, so the
     * caller can treat the command as cut off.
     */
    boolean send(NbdCommand command) {
        synchronized (this) {
            if (aborted) {
                return false;
            }
            command.cookie = nextCookie++;
            inFlight.put(command.cookie, command);
        }
        if (!queue.offer(command)) {
            throw new IllegalStateException("more than " + QUEUED_REQUESTS_MAX + " requests queued on " + uri
                    + ": the caller must bound its in-flight I/O");
        }
        return true;
    }

    /** Requests sent or queued and not yet answered. */
    int inFlight() {
        return inFlight.size();
    }

    /** The request waiting longest for its reply (by {@link NbdCommand#sentNs}), or null if none. */
    NbdCommand oldest() {
        NbdCommand oldest = null;
        for (NbdCommand command : inFlight.values()) { // bounded by the requests in flight
            if (oldest == null || command.sentNs < oldest.sentNs) {
                oldest = command;
            }
        }
        return oldest;
    }

    /**
     * Gives the connection up as if the server had broken it (a request took too long): the listener hears of it
     * once, and the device's usual break, reconnect and replay follow.
     */
    void expire(String why) {
        fail(why);
    }

    /**
     * Closes the socket and returns every request still waiting for a reply (each now belongs to the caller,
     * which must complete it). Idempotent: a second call returns nothing.
     */
    List<NbdCommand> abort() {
        List<NbdCommand> cut = new ArrayList<>();
        synchronized (this) {
            if (aborted) {
                return cut;
            }
            aborted = true;
        }
        broken.set(true); // our own close is not news for the listener
        closeQuietly();
        queue.clear();
        queue.offer(STOP);
        for (Long cookie : new ArrayList<>(inFlight.keySet())) {
            NbdCommand command = inFlight.remove(cookie);
            if (command != null) {
                cut.add(command);
            }
        }
        return cut;
    }

    private void closeQuietly() {
        try {
            socket.close();
        } catch (IOException e) {
            // The socket is unusable either way; the reader and sender end on their next call.
        }
    }

    private void fail(String why) {
        if (broken.compareAndSet(false, true)) {
            listener.broken(this, uri + ": connection " + name + " lost: " + why);
        }
    }

    private void sendLoop() {
        try {
            while (true) {
                NbdCommand command = queue.take();
                if (command == STOP) {
                    return;
                }
                if (!inFlight.containsKey(command.cookie)) {
                    continue; // cut off by an abort
                }
                synchronized (out) {
                    writeHeader(command.type, command.flags, command.cookie, command.offsetBytes,
                            command.lengthBytes);
                    if (command.hasPayload()) {
                        writePayload(command.buffer.duplicate());
                    }
                    if (queue.isEmpty()) {
                        out.flush(); // batch the requests that queued meanwhile into one send
                    }
                }
            }
        } catch (IOException e) {
            fail(String.valueOf(e.getMessage()));
        } catch (InterruptedException e) {
            fail("sender interrupted");
        }
    }

    private void writeHeader(int type, int flags, long cookie, long offsetBytes, int lengthBytes)
            throws IOException {
        out.writeInt(NbdProtocol.REQUEST_MAGIC);
        out.writeShort(flags);
        out.writeShort(type);
        out.writeLong(cookie);
        out.writeLong(offsetBytes);
        out.writeInt(lengthBytes);
    }

    private void writePayload(ByteBuffer src) throws IOException {
        if (src.hasArray()) {
            out.write(src.array(), src.arrayOffset() + src.position(), src.remaining());
            return;
        }
        byte[] chunk = new byte[Math.min(COPY_CHUNK_BYTES, src.remaining())];
        while (src.hasRemaining()) {
            int n = Math.min(chunk.length, src.remaining());
            src.get(chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }

    private void readLoop() {
        byte[] chunk = new byte[COPY_CHUNK_BYTES];
        try {
            while (true) {
                int magic = in.readInt();
                if (magic == NbdProtocol.SIMPLE_REPLY_MAGIC) {
                    readSimple(chunk);
                } else if (magic == NbdProtocol.STRUCTURED_REPLY_MAGIC && info.structuredReplies()) {
                    readStructured(chunk);
                } else {
                    fail("bad reply magic " + Integer.toHexString(magic));
                    return;
                }
            }
        } catch (IOException | ProtocolError e) {
            fail(String.valueOf(e.getMessage()));
        }
    }

    /** A reply that breaks the protocol: the connection cannot be trusted any more. */
    private static final class ProtocolError extends Exception {
        ProtocolError(String message) {
            super(message, null, false, false);
        }
    }

    private NbdCommand lookup(long cookie) throws ProtocolError {
        NbdCommand command = inFlight.get(cookie);
        if (command == null) {
            throw new ProtocolError("reply for unknown cookie " + cookie);
        }
        return command;
    }

    private void readSimple(byte[] chunk) throws IOException, ProtocolError {
        int error = in.readInt();
        long cookie = in.readLong();
        NbdCommand command = lookup(cookie);
        if (error == 0 && command.type == NbdProtocol.CMD_READ) {
            readInto(command.buffer, 0, command.lengthBytes, chunk);
        }
        complete(command, error == 0 ? IoResult.OK : IoResult.error(NbdCommand.statusOf(error), uri + ": "
                + command.describe() + ": server error " + error));
    }

    private void readStructured(byte[] chunk) throws IOException, ProtocolError {
        int flags = in.readUnsignedShort();
        int type = in.readUnsignedShort();
        long cookie = in.readLong();
        long length = in.readInt() & 0xFFFFFFFFL;
        NbdCommand command = lookup(cookie);
        switch (type) {
            case NbdProtocol.REPLY_TYPE_NONE -> skip(length);
            case NbdProtocol.REPLY_TYPE_OFFSET_DATA -> {
                long offset = in.readLong();
                long dataBytes = length - Long.BYTES;
                checkPiece(command, offset, dataBytes);
                readInto(command.buffer, (int) (offset - command.offsetBytes), (int) dataBytes, chunk);
            }
            case REPLY_TYPE_OFFSET_HOLE -> {
                long offset = in.readLong();
                long holeBytes = in.readInt() & 0xFFFFFFFFL;
                checkPiece(command, offset, holeBytes);
                zero(command.buffer, (int) (offset - command.offsetBytes), (int) holeBytes);
                skip(length - Long.BYTES - Integer.BYTES);
            }
            default -> readOtherChunk(command, type, length);
        }
        if ((flags & NbdProtocol.REPLY_FLAG_DONE) != 0) {
            complete(command, command.structuredError == null ? IoResult.OK
                    : IoResult.error(command.structuredErrorStatus, uri + ": " + command.describe() + ": "
                            + command.structuredError));
        }
    }

    private void readOtherChunk(NbdCommand command, int type, long length) throws IOException, ProtocolError {
        boolean isError = (type & 0x8000) != 0;
        if (!isError) {
            skip(length); // e.g. block status, which we never ask for: harmless to ignore
            return;
        }
        if (length < Integer.BYTES + Short.BYTES) {
            throw new ProtocolError("error chunk of " + length + " bytes");
        }
        int error = in.readInt();
        int messageBytes = in.readUnsignedShort();
        long left = length - Integer.BYTES - Short.BYTES;
        if (messageBytes > left || messageBytes > ERROR_MESSAGE_BYTES_MAX) {
            throw new ProtocolError("error chunk message of " + messageBytes + " bytes in " + length);
        }
        byte[] message = new byte[messageBytes];
        in.readFully(message);
        skip(left - messageBytes);
        if (command.structuredError == null) {
            String text = new String(message, StandardCharsets.UTF_8).replace('\n', ' ').strip();
            command.structuredError = "server error " + error + (text.isEmpty() ? "" : " (" + text + ")")
                    + (type == REPLY_TYPE_ERROR_OFFSET ? " at an offset" : "");
            command.structuredErrorStatus = error == 0 ? IoStatus.IO_ERROR : NbdCommand.statusOf(error);
        }
    }

    private void checkPiece(NbdCommand command, long offsetBytes, long lengthBytes) throws ProtocolError {
        if (command.type != NbdProtocol.CMD_READ || offsetBytes < command.offsetBytes || lengthBytes < 0
                || offsetBytes - command.offsetBytes > command.lengthBytes - lengthBytes) {
            throw new ProtocolError("reply chunk [" + offsetBytes + ", +" + lengthBytes + ") outside "
                    + command.describe());
        }
    }

    private void readInto(ByteBuffer buffer, int at, int lengthBytes, byte[] chunk) throws IOException {
        ByteBuffer dst = buffer.duplicate();
        dst.position(dst.position() + at);
        int left = lengthBytes;
        while (left > 0) {
            int n = Math.min(left, chunk.length);
            in.readFully(chunk, 0, n);
            dst.put(chunk, 0, n);
            left -= n;
        }
    }

    private static void zero(ByteBuffer buffer, int at, int lengthBytes) {
        ByteBuffer dst = buffer.duplicate();
        dst.position(dst.position() + at);
        for (int i = 0; i < lengthBytes; i++) {
            dst.put((byte) 0);
        }
    }

    private void skip(long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            int skipped = in.skipBytes((int) Math.min(left, Integer.MAX_VALUE));
            if (skipped <= 0) {
                in.readByte(); // skipBytes may return 0 before the end; readByte throws EOFException there
                skipped = 1;
            }
            left -= skipped;
        }
    }

    private void complete(NbdCommand command, IoResult result) {
        if (inFlight.remove(command.cookie) != null) {
            command.done.done(command, result, false);
        }
    }
}

package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;

/**
 * One request between its arrival and its reply: the header, its buffer if any (the WRITE payload, the READ
 * reply's covering sectors or a CACHE chunk, taken from the server's pool before the request is carried out; a
 * buffer too large for the pool is never allocated on the loop), the budget that buffer holds, and the one way
 * to answer it. Encodes replies in the form the session agreed on (simple, or structured with an error message).
 * Exactly one reply per request; a second is a broken invariant.
 *
 * <p>Reused (nothing allocated per steady-state request on the loop thread). A connection the loop serves
 * takes its requests from a {@link RequestPool}; each object holds what a 4 KiB READ or WRITE needs: the header
 * fields (decoded into it), its reply header in a small direct buffer of its own, the buffers of its gathering
 * write, its {@link SectorWriter}, and it is itself the callback the volume completes. It goes back to the pool
 * only once its reply has been written or dropped, which is after the volume completed it (every reply of a
 * carried-out request is sent from its completion), so nothing still refers to it. A TLS connection's reader makes
 * a new one per request ({@link #InFlightRequest(NbdRequest, ByteBuffer, long, Session, ReplySink,
 * PayloadBuffers)}), answered on its writer's thread and never reused.
 *
 * <p>Thread rule: filled by whoever reads the request (the loop, or a TLS connection's reader); carried out and
 * answered on the loop (or by that reader for early errors); released by whoever wrote the reply.
 */
final class InFlightRequest implements RequestHeader, IoCallback, TransmissionCodec.HeaderFields {
    /** Room for the longest reply header sent from {@link #replyHeader}: an OFFSET_DATA chunk's 28 bytes. */
    static final int REPLY_HEADER_BYTES_MAX = TransmissionCodec.OFFSET_DATA_PREFIX_BYTES;

    private final Session session;
    private final ReplySink writer;
    private final PayloadBuffers buffers;
    /**
     * The reply header of every reply but structured errors and BLOCK_STATUS. A reused request's is direct, so the
     * socket takes it without the JDK's copy (at most {@link RequestPool#FREE_MAX} x 28 bytes per connection, within
     * the launcher's direct-memory slack); a one-time request's is on the heap: it is made per request, and TLS
     * copies it into its record anyway.
     */
    private final ByteBuffer replyHeader;
    /** The gathering write's buffers for a header-only or header-and-data reply. */
    private final ByteBuffer[] ownReplyParts = new ByteBuffer[2];
    private ByteBuffer[] replyParts;
    private int replyPartCount;
    /** Made at the first WRITE this object carries and reused by every later one. */
    private SectorWriter sectorWriter;

    private int flags;
    private int type;
    private long handle;
    private long offsetBytes;
    private long lengthBytes;
    /** Given back to the pool once the reply is out; null afterwards (the writer's thread). */
    private ByteBuffer buffer;
    private long bufferBytes;
    /** True from handing this object to the volume as a callback until it completes (loop thread). */
    private boolean awaitingVolume;
    private volatile boolean answered;

    /** A request of a connection the loop serves, for its {@link RequestPool}: empty until a header is decoded. */
    InFlightRequest(Session session, ReplySink writer, PayloadBuffers buffers) {
        this(session, writer, buffers, ByteBuffer.allocateDirect(REPLY_HEADER_BYTES_MAX));
    }

    private InFlightRequest(Session session, ReplySink writer, PayloadBuffers buffers, ByteBuffer replyHeader) {
        this.session = session;
        this.writer = writer;
        this.buffers = buffers;
        this.replyHeader = replyHeader;
    }

    /**
     * A one-time request (a TLS connection's, or one answered at once).
     *
     * @param buffer the request's buffer, taken from {@code buffers}, or null
     * @param bufferBytes the budget the buffer holds (its direct bytes), 0 without one
     * @param buffers the server's pool, where the buffer goes back
     */
    InFlightRequest(NbdRequest header, ByteBuffer buffer, long bufferBytes, Session session, ReplySink writer,
                    PayloadBuffers buffers) {
        this(session, writer, buffers, ByteBuffer.allocate(REPLY_HEADER_BYTES_MAX));
        header(header.flags(), header.type(), header.handle(), header.offsetBytes(), header.lengthBytes());
        hold(buffer, bufferBytes);
    }

    /** Takes a decoded header (the loop thread, or the constructor). */
    @Override
    public void header(int flags, int type, long handle, long offsetBytes, long lengthBytes) {
        this.flags = flags;
        this.type = type;
        this.handle = handle;
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
    }

    /** Gives the request its buffer (or null) and the budget it holds, before it is carried out. */
    void hold(ByteBuffer buffer, long bufferBytes) {
        this.buffer = buffer;
        this.bufferBytes = bufferBytes;
    }

    /** Makes a finished request ready for the next header: its pool's, the loop thread. */
    void reset() {
        if (!answered || awaitingVolume || buffer != null) {
            throw new IllegalStateException("request " + this + " reused before it was finished (answered "
                    + answered + ", awaiting the volume " + awaitingVolume + ", holding a buffer "
                    + (buffer != null) + ")");
        }
        bufferBytes = 0;
        replyParts = null;
        replyPartCount = 0;
        ownReplyParts[0] = null;
        ownReplyParts[1] = null;
        answered = false;
    }

    @Override
    public int flags() {
        return flags;
    }

    @Override
    public int type() {
        return type;
    }

    @Override
    public long handle() {
        return handle;
    }

    @Override
    public long offsetBytes() {
        return offsetBytes;
    }

    @Override
    public long lengthBytes() {
        return lengthBytes;
    }

    /**
     * The request's buffer as {@code lengthBytes} bytes (position 0, unspecified contents), for a READ reply or a
     * CACHE chunk; owned by the request until its reply has been written. Thread rule: the loop.
     *
     * @throws IllegalStateException if the reader gave this request no buffer that large
     */
    ByteBuffer buffer(int lengthBytes) {
        if (buffer == null || buffer.capacity() < lengthBytes) {
            throw new IllegalStateException("request " + this + " has no buffer of " + lengthBytes + " bytes");
        }
        return buffer.clear().limit(lengthBytes);
    }

    /**
     * The request's buffer positioned on {@code [fromBytes, + lengthBytes)}: the READ data inside the covering
     * sectors, sent without a view of its own. Thread rule: the loop.
     */
    ByteBuffer window(int fromBytes, int lengthBytes) {
        return buffer(fromBytes + lengthBytes).position(fromBytes);
    }

    /**
     * Gives the buffer back to the pool. Only once the reply has been written or dropped (or the request was
     * never handed on): the volume is done with the payload when it completes, and the reply data is then on
     * the socket. Thread rule: the connection's writer, or its reader for a request it abandons.
     */
    void releaseBuffers() {
        if (buffer != null) {
            buffers.release(buffer);
            buffer = null;
        }
    }

    /** The WRITE payload (position 0, limit = length), or null for other commands. */
    ByteBuffer payload() {
        return type == CMD_WRITE ? buffer : null;
    }

    /** Buffer bytes this request holds of the budget (released when its reply has been written). */
    long bufferBytes() {
        return bufferBytes;
    }

    Session session() {
        return session;
    }

    /** This request's writer of sectors, made once and reused (it is idle whenever a new request starts). */
    SectorWriter sectorWriter() {
        if (sectorWriter == null) {
            sectorWriter = new SectorWriter(session.export());
        }
        return sectorWriter;
    }

    /** This request as the callback of the volume call about to be made for it. Thread rule: the loop. */
    IoCallback awaitVolume() {
        if (awaitingVolume || answered) {
            throw new IllegalStateException("request " + this + " handed to the volume twice");
        }
        awaitingVolume = true;
        return this;
    }

    /** The volume finished this request: {@link CommandExecutor} answers it. Exactly once per volume call. */
    @Override
    public void complete(IoResult result) {
        if (!awaitingVolume) {
            throw new IllegalStateException("request " + this + " completed twice or without a volume call");
        }
        awaitingVolume = false;
        CommandExecutor.completed(this, result);
    }

    /** Answers success without data. */
    void ok() {
        send(TransmissionCodec.simpleReply(replyHeader, handle, 0), null);
    }

    /** Answers a READ with {@code data} (exactly the bytes asked for). */
    void data(ByteBuffer data) {
        if (!session.structuredReplies()) {
            send(TransmissionCodec.simpleReply(replyHeader, handle, 0), data);
        } else if (!data.hasRemaining()) {
            send(TransmissionCodec.noneChunk(replyHeader, handle), null);
        } else {
            // One chunk holding all the data, so DF is always honoured; the data is complete in memory, so no
            // error can arise while it is sent and the chunk may carry DONE.
            send(TransmissionCodec.offsetDataPrefix(replyHeader, handle, offsetBytes, data.remaining(), true),
                    data);
        }
    }

    /** Answers with an error value; structured sessions also get {@code message}. */
    void error(int error, String message) {
        if (session.structuredReplies()) {
            chunks(TransmissionCodec.errorChunk(handle, error, message)); // an error path: a buffer of its own
        } else {
            send(TransmissionCodec.simpleReply(replyHeader, handle, error), null);
        }
    }

    /** Answers with prepared structured chunks (BLOCK_STATUS, errors); the last must carry DONE. */
    void chunks(ByteBuffer... chunks) {
        answer(chunks, chunks.length);
    }

    /** Buffers of the reply, in order, for the gathering write: {@code [0, replyPartCount())}. */
    ByteBuffer replyPart(int index) {
        return replyParts[index];
    }

    int replyPartCount() {
        return replyPartCount;
    }

    private void send(ByteBuffer header, ByteBuffer data) {
        ownReplyParts[0] = header;
        ownReplyParts[1] = data;
        answer(ownReplyParts, data == null ? 1 : 2);
    }

    private void answer(ByteBuffer[] parts, int count) {
        if (answered) {
            throw new IllegalStateException("request " + this + " answered twice");
        }
        answered = true;
        replyParts = parts;
        replyPartCount = count;
        writer.send(this);
    }

    @Override
    public String toString() {
        return "NbdRequest[flags=" + flags + ", type=" + type + ", handle=" + handle + ", offsetBytes=" + offsetBytes
                + ", lengthBytes=" + lengthBytes + "]";
    }
}

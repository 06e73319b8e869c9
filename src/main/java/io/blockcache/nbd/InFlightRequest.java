package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.nio.ByteBuffer;

/**
 * One request between its arrival and its reply: the header, its buffer if any (the WRITE payload, the READ
 * reply's covering sectors or a CACHE chunk, taken from the server's pool before the request is carried out; a
 * buffer too large for the pool is never allocated on the loop), the budget that buffer holds, and the one way
 * to answer it. Encodes replies in the form the session agreed on (simple, or structured with an error message).
 * Exactly one reply per request; a second is a broken invariant.
 *
 * <p>Thread rule: created by whoever reads the request (the loop, or a TLS connection's reader); answered from the
 * loop (or that reader for early errors).
 */
final class InFlightRequest {
    private final NbdRequest header;
    /** Given back to the pool once the reply is out; null afterwards (the writer's thread). */
    private ByteBuffer buffer;
    private final long bufferBytes;
    private final Session session;
    private final ReplySink writer;
    private final PayloadBuffers buffers;
    private volatile boolean answered;

    /**
     * @param buffer the request's buffer, taken from {@code buffers}, or null
     * @param bufferBytes the budget the buffer holds (its direct bytes), 0 without one
     * @param buffers the server's pool, where the buffer goes back
     */
    InFlightRequest(NbdRequest header, ByteBuffer buffer, long bufferBytes, Session session, ReplySink writer,
                    PayloadBuffers buffers) {
        this.header = header;
        this.buffer = buffer;
        this.bufferBytes = bufferBytes;
        this.session = session;
        this.writer = writer;
        this.buffers = buffers;
    }

    /**
     * The request's buffer as {@code lengthBytes} bytes (position 0, unspecified contents), for a READ reply or a
     * CACHE chunk; owned by the request until its reply has been written. Thread rule: the loop.
     *
     * @throws IllegalStateException if the reader gave this request no buffer that large
     */
    ByteBuffer buffer(int lengthBytes) {
        if (buffer == null || buffer.capacity() < lengthBytes) {
            throw new IllegalStateException("request " + header + " has no buffer of " + lengthBytes + " bytes");
        }
        return buffer.clear().limit(lengthBytes);
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

    NbdRequest header() {
        return header;
    }

    /** The WRITE payload (position 0, limit = length), or null for other commands. */
    ByteBuffer payload() {
        return header.type() == CMD_WRITE ? buffer : null;
    }

    /** Buffer bytes this request holds of the budget (released when its reply has been written). */
    long bufferBytes() {
        return bufferBytes;
    }

    Session session() {
        return session;
    }

    /** Answers success without data. */
    void ok() {
        send(TransmissionCodec.simpleReply(header.handle(), 0));
    }

    /** Answers a READ with {@code data} (exactly the bytes asked for). */
    void data(ByteBuffer data) {
        if (!session.structuredReplies()) {
            send(TransmissionCodec.simpleReply(header.handle(), 0), data);
        } else if (!data.hasRemaining()) {
            send(TransmissionCodec.noneChunk(header.handle()));
        } else {
            // One chunk holding all the data, so DF is always honoured; the data is complete in memory, so no
            // error can arise while it is sent and the chunk may carry DONE.
            send(TransmissionCodec.offsetDataPrefix(header.handle(), header.offsetBytes(), data.remaining(), true),
                    data);
        }
    }

    /** Answers with an error value; structured sessions also get {@code message}. */
    void error(int error, String message) {
        if (session.structuredReplies()) {
            send(TransmissionCodec.errorChunk(header.handle(), error, message));
        } else {
            send(TransmissionCodec.simpleReply(header.handle(), error));
        }
    }

    /** Answers with prepared structured chunks (BLOCK_STATUS); the last must carry DONE. */
    void chunks(ByteBuffer... chunks) {
        send(chunks);
    }

    private void send(ByteBuffer... buffers) {
        if (answered) {
            throw new IllegalStateException("request " + header + " answered twice");
        }
        answered = true;
        writer.send(new ReplyWriter.Reply(buffers, this));
    }
}

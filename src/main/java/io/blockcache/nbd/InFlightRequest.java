package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.nio.ByteBuffer;

/**
 * One request between its arrival and its reply: the header, the WRITE payload if any, the buffer budget it
 * holds, and the one way to answer it. Encodes replies in the form the session agreed on (simple, or
 * structured with an error message). Exactly one reply per request; a second is a broken invariant.
 *
 * <p>Thread rule: created by the reader; answered from the loop (or the reader for early errors).
 */
final class InFlightRequest {
    private final NbdRequest header;
    private final ByteBuffer payload;
    private final long budgetBytes;
    private final Session session;
    private final ReplyWriter writer;
    private final PayloadBuffers buffers;
    /** The READ reply's buffer from {@link #replyBuffer}, given back with the payload once the reply is out. */
    private ByteBuffer replyBuffer;
    private volatile boolean answered;

    /**
     * @param payload the WRITE payload, taken from {@code buffers}, or null
     * @param buffers the connection's pool: the payload goes back there, and reply buffers come from it
     */
    InFlightRequest(NbdRequest header, ByteBuffer payload, long budgetBytes, Session session, ReplyWriter writer,
                    PayloadBuffers buffers) {
        this.header = header;
        this.payload = payload;
        this.budgetBytes = budgetBytes;
        this.session = session;
        this.writer = writer;
        this.buffers = buffers;
    }

    /**
     * A buffer of {@code lengthBytes} (position 0, unspecified contents) for this request's READ reply, owned by
     * the request until its reply has been written. At most one per request. Thread rule: the loop.
     */
    ByteBuffer replyBuffer(int lengthBytes) {
        if (replyBuffer != null) {
            throw new IllegalStateException("request " + header + " took a second reply buffer");
        }
        replyBuffer = buffers.take(lengthBytes);
        return replyBuffer;
    }

    /**
     * Gives the payload and reply buffers back to the pool. Only once the reply has been written or dropped:
     * the volume is done with the payload when it completes, and the reply data is then on the socket.
     * Thread rule: the connection's writer.
     */
    void releaseBuffers() {
        if (payload != null) {
            buffers.release(payload);
        }
        if (replyBuffer != null) {
            buffers.release(replyBuffer);
            replyBuffer = null;
        }
    }

    NbdRequest header() {
        return header;
    }

    /** The WRITE payload (position 0, limit = length), or null for other commands. */
    ByteBuffer payload() {
        return payload;
    }

    /** Buffer bytes this request was allowed to hold (released when its reply has been written). */
    long budgetBytes() {
        return budgetBytes;
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

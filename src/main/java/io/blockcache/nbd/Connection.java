package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One client connection: its reader (this object's {@link #run}, on a virtual thread) runs the handshake,
 * then reads requests and hands each to the loop; its {@link ReplyWriter} sends the replies, in whatever
 * order they complete.
 *
 * <p>Memory is bounded per connection: at most {@link #REQUESTS_IN_FLIGHT_MAX} requests and
 * {@link #BUFFERED_BYTES_MAX} bytes of payload and reply buffers in flight; when either is used up the reader
 * stops reading the socket until replies have been written. A WRITE longer than the advertised maximum is
 * read and dropped (EINVAL) up to {@link #REFUSED_PAYLOAD_BYTES_MAX}; beyond that the client is cut off.
 *
 * <p>Ending: on DISC, end of stream, a protocol violation or an I/O error the reader stops reading, waits
 * until every request already handed to the loop has been answered (replies to a vanished client are
 * dropped), then closes the socket. Nothing half-received is ever passed to a volume.
 *
 * <p>Thread rule: {@link #shutdownInput} and {@link #forceClose} from any thread.
 */
final class Connection implements Runnable {
    /** Requests in flight per connection: deep enough for fio at iodepth 32 and qemu, small enough to bound. */
    static final int REQUESTS_IN_FLIGHT_MAX = 64;
    /** Payload and reply bytes in flight per connection: two maximum-size requests. */
    static final int BUFFERED_BYTES_MAX = 64 << 20;
    /** Over-long WRITE payloads up to this are consumed and refused; longer ones end the connection. */
    static final long REFUSED_PAYLOAD_BYTES_MAX = 64L << 20;
    /** Per-request slack for the sectors an unaligned READ or WRITE reads around its range. */
    private static final int ALIGNMENT_SLACK_BYTES = 2 * SectorSpan.SECTOR_BYTES;

    private final long id;
    private final SocketChannel channel;
    private final Exports exports;
    private final EventLoop loop;
    private final NbdServer.Counters counters;
    private final Semaphore requestPermits = new Semaphore(REQUESTS_IN_FLIGHT_MAX);
    private final Semaphore bytePermits = new Semaphore(BUFFERED_BYTES_MAX);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final PayloadBuffers buffers = new PayloadBuffers();
    private final Runnable onClosed;
    private ReplyWriter writer;

    Connection(long id, SocketChannel channel, Exports exports, EventLoop loop, NbdServer.Counters counters,
               Runnable onClosed) {
        this.id = id;
        this.channel = channel;
        this.exports = exports;
        this.loop = loop;
        this.counters = counters;
        this.onClosed = onClosed;
    }

    @Override
    public void run() {
        FrameReader reader = new FrameReader(channel);
        try {
            Session session = new Negotiation(exports, reader, channel).run();
            if (session != null) {
                serve(session, reader);
            }
        } catch (ProtocolException e) {
            counters.protocolErrors.incrementAndGet();
        } catch (IOException e) {
            counters.clientsGone.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            windDown();
        }
    }

    private void serve(Session session, FrameReader reader) throws IOException, ProtocolException,
            InterruptedException {
        writer = new ReplyWriter(channel, "nbd-writer-" + id, this::written);
        writer.start();
        ByteBuffer headerFrame = ByteBuffer.allocate(REQUEST_HEADER_BYTES);
        while (true) {
            requestPermits.acquire();
            NbdRequest header;
            try {
                if (!reader.readFrameOrEnd(headerFrame.clear())) {
                    requestPermits.release();
                    return; // the client hung up between requests (fio's first connection does)
                }
                header = TransmissionCodec.decodeRequest(headerFrame.flip());
            } catch (IOException | ProtocolException e) {
                requestPermits.release();
                throw e;
            }
            if (header.type() == CMD_DISC) {
                requestPermits.release();
                return;
            }
            admit(session, reader, header);
        }
    }

    /** Takes one request that holds a request permit: refuses it, or reads its payload and passes it on. */
    private void admit(Session session, FrameReader reader, NbdRequest header) throws IOException,
            ProtocolException, InterruptedException {
        boolean payload = header.type() == CMD_WRITE;
        boolean dataReply = header.type() == CMD_READ;
        if ((payload || dataReply) && header.lengthBytes() > Negotiation.BLOCK_MAXIMUM_BYTES) {
            if (payload && header.lengthBytes() > REFUSED_PAYLOAD_BYTES_MAX) {
                requestPermits.release();
                throw new ProtocolException("WRITE of " + header.lengthBytes() + " bytes: too large to consume");
            }
            if (payload) {
                skip(reader, header.lengthBytes());
            }
            counters.idle.begin();
            new InFlightRequest(header, null, 0, session, writer, buffers).error(EINVAL,
                    "length " + header.lengthBytes() + " exceeds the maximum of " + Negotiation.BLOCK_MAXIMUM_BYTES
                    + " bytes");
            return;
        }
        long budgetBytes = payload || dataReply ? header.lengthBytes() + ALIGNMENT_SLACK_BYTES
                : header.type() == CMD_CACHE ? CacheWarmer.CHUNK_BYTES : 0;
        bytePermits.acquire((int) budgetBytes);
        counters.idle.begin();
        ByteBuffer data = null;
        if (payload) {
            try {
                data = buffers.take((int) header.lengthBytes());
                reader.readFully(data);
                data.flip();
            } catch (IOException e) {
                buffers.release(data);
                bytePermits.release((int) budgetBytes);
                requestPermits.release();
                counters.idle.end();
                throw e; // a truncated payload is never written anywhere
            }
        }
        InFlightRequest request = new InFlightRequest(header, data, budgetBytes, session, writer, buffers);
        try {
            loop.execute(() -> CommandExecutor.execute(request));
        } catch (IllegalStateException stopped) {
            request.error(ESHUTDOWN, "the server is shutting down");
        }
    }

    private void skip(FrameReader reader, long bytes) throws IOException {
        try {
            reader.skip(bytes);
        } catch (IOException e) {
            requestPermits.release();
            throw e;
        }
    }

    /** Called by the writer once a reply has been written or dropped: frees what the request held. */
    private void written(InFlightRequest request) {
        request.releaseBuffers();
        bytePermits.release((int) request.budgetBytes());
        requestPermits.release();
        counters.idle.end();
    }

    private void windDown() {
        try {
            // Every request handed to the loop is answered before the socket closes (the spec: DISC must
            // handle all outstanding requests); the loop always completes what it was given.
            requestPermits.acquireUninterruptibly(REQUESTS_IN_FLIGHT_MAX);
            if (writer != null) {
                writer.stopAndJoin();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            forceClose();
            onClosed.run(); // before the latch: whoever waited for the close then sees the connection gone
            closed.countDown();
        }
    }

    /** Stops reading: the reader sees the end of the stream and winds down after answering what it has. */
    void shutdownInput() {
        try {
            channel.shutdownInput();
        } catch (IOException e) {
            forceClose(); // cannot half-close: close it all, which ends the reader as well
        }
    }

    /** Closes the socket at once (replies not yet written are dropped). */
    void forceClose() {
        try {
            channel.close();
        } catch (IOException e) {
            counters.clientsGone.incrementAndGet();
        }
    }

    /** Waits until the connection has ended, at most {@code timeoutNs}. */
    boolean awaitClosed(long timeoutNs) throws InterruptedException {
        return closed.await(timeoutNs, TimeUnit.NANOSECONDS);
    }
}

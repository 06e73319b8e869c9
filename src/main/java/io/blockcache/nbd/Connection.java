package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.log.EventName;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.ChannelLoop;
import io.blockcache.volume.VolumeConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One client connection: its reader (this object's {@link #run}, on a virtual thread) runs the handshake,
 * then reads requests and hands each to the loop; its {@link ReplyWriter} sends the replies, in whatever
 * order they complete. A plain-TCP connection on a {@link ChannelLoop} instead hands its socket to the loop after
 * the handshake ({@link LoopTransport}), and this thread only waits for it to end and winds the connection down.
 *
 * <p>Memory is bounded three ways: at most {@link #REQUESTS_IN_FLIGHT_MAX} requests in flight; at most
 * {@link ConnectionBudget#CONNECTION_BUFFER_BYTES_MAX} bytes of buffers (capped by the server's budget); and the
 * server's one
 * {@link BufferBudget} over all connections. A request takes its bytes, waiting if need be, before anything is
 * allocated or read for it, and all of its buffers (WRITE payload, READ reply, CACHE chunk) are taken here on
 * the reader (on the loop for a connection it serves, {@link LoopTransport}, which allocates none larger than the
 * pool's classes itself). If the JVM cannot allocate one anyway, only that request fails (ENOMEM, its
 * payload consumed); an out-of-memory error anywhere else on this connection's threads ends this connection
 * only. READ and WRITE up to {@link #REQUEST_BYTES_MAX} are served; a longer WRITE is read and dropped (EINVAL)
 * up to {@link #REFUSED_PAYLOAD_BYTES_MAX}, beyond that the client is cut off.
 *
 * <p>Ending: on DISC, end of stream, a protocol violation, a timeout ({@link ConnectionWatchdog}) or an I/O
 * error the reader stops reading, waits until every request already handed to the loop has been answered
 * (replies to a vanished client are dropped), then closes the socket. Nothing half-received is ever passed to a
 * volume.
 *
 * <p>Thread rule: {@link #shutdownInput}, {@link #forceClose} and {@link #close(Timeout)} from any thread;
 * {@link #timedOut} from the watchdog thread only.
 */
final class Connection implements Runnable {
    /** Requests in flight per connection: deep enough for fio at iodepth 32 and qemu, small enough to bound. */
    static final int REQUESTS_IN_FLIGHT_MAX = 64;
    /**
     * The longest READ or WRITE served: 64 MiB, nbdkit's limit (MAX_REQUEST_SIZE) and the volume's, so that the
     * reference NBD tester's large requests pass. The block size advertised stays at 32 MiB
     * ({@link Negotiation#BLOCK_MAXIMUM_BYTES}); clients that honour it never get near this.
     */
    static final int REQUEST_BYTES_MAX = VolumeConfig.REQUEST_BYTES_MAX;
    /** Over-long WRITE payloads up to this are consumed and refused (nbdkit skips up to twice its maximum too). */
    static final long REFUSED_PAYLOAD_BYTES_MAX = 2L * REQUEST_BYTES_MAX;
    /** Per-request slack for the sectors an unaligned READ reads around its range. */
    static final int ALIGNMENT_SLACK_BYTES = 2 * SectorSpan.SECTOR_BYTES;

    /** Why the watchdog closes a connection. */
    enum Timeout { HANDSHAKE, IDLE, REPLY_STALL }


    private final long id;
    private final SocketChannel channel;
    private final String peer;
    private final java.net.InetAddress peerAddress;
    private final ConnectionContext context;
    private final long acceptedNs;
    private final Runnable onClosed;
    private final FrameReader reader;
    /** Where replies go: the socket, or the TLS session over it once the client started TLS. */
    private GatheringByteChannel transport;
    private final Semaphore requestPermits = new Semaphore(REQUESTS_IN_FLIGHT_MAX);
    private final ConnectionBudget budget;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile ReplyWriter writer;
    /** The transmission phase on the loop thread (plain TCP on a {@link ChannelLoop}), or null. */
    private volatile LoopTransport onLoop;
    /** Where replies go once transmission began: {@link #writer} or {@link #onLoop}; null before. */
    private volatile ReplySink replies;
    private volatile boolean handshakeDone;
    /** The export the handshake agreed on; null before (and for a connection that never got one). */
    private volatile Export export;
    /** True while the reader waits for the next request header: the only state in which a connection is idle. */
    private volatile boolean awaitingRequest;
    /** True once the client ended transmission itself (DISC, or a hang-up between requests). */
    private boolean endedByClient;
    /** Set before the watchdog closes the socket, so the reader's I/O error is not counted as a vanished client. */
    private volatile Timeout closedBy;
    // Watchdog-thread state: what it saw last and since when.
    private long seenReadBytes = -1;
    private long quietSinceNs;
    private long seenWrittenBytes = -1;
    private long writeProgressNs;

    /**
     * @param peerAddress the client's address, for the exports' allow-lists and log lines
     * @param acceptedNs when it was accepted, on the server's clock
     */
    Connection(long id, SocketChannel channel, java.net.InetAddress peerAddress, ConnectionContext context,
               long acceptedNs,
               Runnable onClosed) {
        this.id = id;
        this.channel = channel;
        this.peerAddress = peerAddress;
        this.peer = peerAddress.getHostAddress();
        this.context = context;
        this.acceptedNs = acceptedNs;
        this.onClosed = onClosed;
        this.reader = new FrameReader(channel);
        this.transport = channel;
        this.budget = new ConnectionBudget(context.budget());
        this.quietSinceNs = acceptedNs;
        this.writeProgressNs = acceptedNs;
    }

    @Override
    public void run() {
        NbdCounters counters = context.counters();
        Session session = null;
        try {
            session = new Negotiation(context.exports(), reader, channel, context.tls().mode(), this::startTls,
                    counters, (name, line) -> context.log().line(name, peer, line), peerAddress).run();
            handshakeDone = true;
            if (session != null) {
                export = session.export();
                // Written before this read, as removeExport withdraws before it ends the export's connections: a
                // handshake that found the export just before it was withdrawn is ended here or by that scan.
                if (context.exports().offers(session.export())) {
                    connected(session);
                    serve(session);
                    endedByClient = true;
                }
            }
        } catch (ProtocolException e) {
            counters.protocolErrors.incrementAndGet();
            context.log().line(handshakeDone ? EventName.NBD_PROTOCOL_ERROR : EventName.NBD_HANDSHAKE_FAILED, peer,
                    e.getMessage() + "; connection closed");
        } catch (TlsStart.Failed e) {
            // counted and logged by TlsStart
        } catch (IOException e) {
            if (closedBy == null) {
                counters.clientsGone.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (OutOfMemoryError e) {
            // Only this connection's reader failed to allocate (heap or direct): end it; the others go on.
            counters.connectionsOutOfMemory.incrementAndGet();
            context.log().line(EventName.NBD_OUT_OF_MEMORY, peer, "out of memory (" + e.getMessage()
                    + "); connection closed");
        } finally {
            windDown();
            if (session != null) {
                disconnected(session);
            }
        }
    }

    private void connected(Session session) {
        boolean tls = transport != channel;
        context.log().connection(LogEvent.of(EventName.NBD_CONNECT, peer + ": export '" + session.export().name()
                + "'" + (tls ? " over TLS" : "")).with("peer", peer).with("export", session.export().name())
                .with("tls", tls ? 1 : 0));
    }

    private void disconnected(Session session) {
        long seconds = Math.max(0, context.loop().nowNs() - acceptedNs) / 1_000_000_000L;
        Timeout timeout = closedBy;
        context.log().connection(LogEvent.of(EventName.NBD_DISCONNECT, peer + ": export '" + session.export().name()
                + "' closed after " + seconds + " s" + (timeout != null ? " (" + timeout.name().toLowerCase(
                java.util.Locale.ROOT) + " timeout)" : endedByClient ? "" : " (by the server)")).with("peer", peer)
                .with("export", session.export().name()).with("seconds", seconds));
    }

    private void serve(Session session) throws IOException, ProtocolException, InterruptedException {
        if (transport == channel && context.loop() instanceof ChannelLoop loop) {
            // Plain TCP: the loop reads, carries out and answers each request itself (LoopTransport says why).
            CompletableFuture<Exception> inputEnded = new CompletableFuture<>();
            LoopTransport started = new LoopTransport(loop, channel, context, session, peer, requestPermits, budget,
                    reader.takeStaging(), this::written, inputEnded::complete);
            onLoop = started;
            replies = started.replies();
            started.start();
            Exception cause = awaitUninterruptibly(inputEnded); // shutdown ends the input: wait for that, always
            if (cause instanceof ProtocolException protocol) {
                throw protocol;
            }
            if (cause != null) {
                throw (IOException) cause;
            }
            return;
        }
        ReplyWriter started = new ReplyWriter(transport, "nbd-writer-" + id, this::written);
        writer = started;
        replies = started;
        started.start();
        ByteBuffer headerFrame = ByteBuffer.allocate(REQUEST_HEADER_BYTES);
        while (true) {
            requestPermits.acquire();
            boolean handedOff = false;
            try {
                awaitingRequest = true;
                boolean more = reader.readFrameOrEnd(headerFrame.clear());
                awaitingRequest = false;
                if (!more) {
                    return; // the client hung up between requests (fio's first connection does)
                }
                NbdRequest header = TransmissionCodec.decodeRequest(headerFrame.flip());
                if (header.type() == CMD_DISC) {
                    return;
                }
                admit(session, header);
                handedOff = true; // its reply now frees the permit
            } finally {
                awaitingRequest = false;
                if (!handedOff) {
                    requestPermits.release();
                }
            }
        }
    }

    private static Exception awaitUninterruptibly(CompletableFuture<Exception> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("completed only with a value", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes one request that holds a request permit. Returns once it has been answered or handed to the loop
     * (its reply then frees what it holds); throws, having freed everything but the permit, if the connection
     * must end.
     */
    private void admit(Session session, NbdRequest header) throws IOException, ProtocolException,
            InterruptedException {
        boolean write = header.type() == CMD_WRITE;
        long lengthBytes = header.lengthBytes();
        if ((write || header.type() == CMD_READ) && lengthBytes > REQUEST_BYTES_MAX) {
            if (write && lengthBytes > REFUSED_PAYLOAD_BYTES_MAX) {
                throw new ProtocolException("WRITE of " + lengthBytes + " bytes: too large to consume");
            }
            if (write) {
                reader.skip(lengthBytes);
            }
            refuse(session, header, new RequestCheck.Refusal(EINVAL, "length " + lengthBytes
                    + " exceeds the maximum of " + REQUEST_BYTES_MAX + " bytes"));
            return;
        }
        RequestCheck.Refusal refusal = RequestCheck.refusal(header, session);
        if (refusal != null) {
            // Refused before any budget or buffer is taken: a flood of bad requests costs no memory.
            if (write) {
                reader.skip(lengthBytes);
            }
            refuse(session, header, refusal);
            return;
        }
        int bufferLengthBytes = ConnectionBudget.bufferLengthBytes(header);
        long bufferBytes = ConnectionBudget.bytesFor(bufferLengthBytes);
        budget.take(bufferBytes);
        ByteBuffer buffer;
        try {
            buffer = bufferLengthBytes == 0 ? null : context.buffers().take(bufferLengthBytes);
        } catch (OutOfMemoryError e) {
            // The budget should keep direct memory below the JVM's limit, but other users of direct memory (or a
            // limit set below the budget) can still make this fail: fail this request, not the server.
            budget.give(bufferBytes);
            context.counters().allocationFailures.incrementAndGet();
            context.log().line(EventName.NBD_OUT_OF_MEMORY, peer, "no memory for a " + bufferLengthBytes
                    + "-byte buffer (" + e.getMessage() + "); request answered ENOMEM");
            if (write) {
                reader.skip(lengthBytes);
            }
            answerNow(session, header, ENOMEM, "the server is short of buffer memory; retry later");
            return;
        }
        InFlightRequest request;
        boolean handedOff = false;
        try {
            request = new InFlightRequest(header, buffer, bufferBytes, session, writer, context.buffers());
            if (write) {
                reader.readFully(buffer); // a truncated payload throws here and is never written anywhere
                buffer.flip();
            }
            context.counters().idle.begin();
            handedOff = true; // from here the reply gives everything back
        } finally {
            if (!handedOff) { // an I/O error, or an out-of-memory error: nothing may leak from the budget
                if (buffer != null) {
                    context.buffers().release(buffer);
                }
                budget.give(bufferBytes);
            }
        }
        try {
            context.loop().execute(() -> CommandExecutor.execute(request));
        } catch (IllegalStateException stopped) {
            request.error(ESHUTDOWN, "the server is shutting down");
        } catch (OutOfMemoryError e) {
            // The loop's queue could not take it; the request must still be answered, or its permits never return.
            context.counters().allocationFailures.incrementAndGet();
            request.error(ENOMEM, "the server is short of memory; retry later");
        }
    }

    /**
     * Runs the TLS handshake after STARTTLS was acknowledged and moves the connection onto the session. The
     * handshake counts against the handshake timeout like the rest of negotiation.
     */
    private WritableByteChannel startTls() throws IOException {
        TlsChannel session = TlsStart.handshake(context, channel, peer, () -> closedBy != null);
        reader.switchTo(session);
        transport = session;
        return session;
    }

    /**
     * Answers a refused request and tells the operator (rate-limited), except for FAST_ZERO, which clients such
     * as qemu-img send to probe whether zeroing is fast and which is no client error.
     */
    private void refuse(Session session, NbdRequest header, RequestCheck.Refusal refusal) {
        if (refusal.error() != ENOTSUP) {
            context.log().line(EventName.NBD_REQUEST_REFUSED, peer, "request " + header.type()
                    + " refused with error " + refusal.error() + ": " + refusal.message());
        }
        answerNow(session, header, refusal.error(), refusal.message());
    }

    /** Answers a request at once from the reader, holding no buffer. */
    private void answerNow(Session session, NbdRequest header, int error, String message) {
        context.counters().idle.begin();
        new InFlightRequest(header, null, 0, session, writer, context.buffers()).error(error, message);
    }

    /** Called by the writer once a reply has been written or dropped: frees what the request held. */
    private void written(InFlightRequest request) {
        request.releaseBuffers();
        budget.give(request.bufferBytes());
        requestPermits.release();
        context.counters().idle.end();
    }

    private void windDown() {
        try {
            // Every request handed to the loop is answered before the socket closes (the spec: DISC must
            // handle all outstanding requests); the loop always completes what it was given.
            requestPermits.acquireUninterruptibly(REQUESTS_IN_FLIGHT_MAX);
            ReplyWriter started = writer;
            if (started != null) {
                started.stopAndJoin(endedByClient); // a TLS session the client ended gets close_notify
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            forceClose();
            onClosed.run(); // before the latch: whoever waited for the close then sees the connection gone
            closed.countDown();
        }
    }

    /**
     * The timeout that has expired, or null. Called by the watchdog every tick; it then closes the connection.
     * Idle means: handshake done, no request in flight, the reader waiting for a header and no byte read.
     */
    Timeout timedOut(long nowNs, NbdLimits limits) {
        LoopTransport loopSide = onLoop;
        long readBytes = reader.bytesRead() + (loopSide != null ? loopSide.bytesRead() : 0);
        if (!handshakeDone) {
            return nowNs - acceptedNs >= limits.handshakeTimeout().toNanos() ? Timeout.HANDSHAKE : null;
        }
        ReplySink started = replies;
        if (started != null && !limits.replyStallTimeout().isZero()) {
            long writtenBytes = started.bytesWritten();
            if (!started.writing() || writtenBytes != seenWrittenBytes) {
                seenWrittenBytes = writtenBytes;
                writeProgressNs = nowNs;
            } else if (nowNs - writeProgressNs >= limits.replyStallTimeout().toNanos()) {
                return Timeout.REPLY_STALL;
            }
        }
        // The threaded reader holds a permit while it waits for a header; the loop takes one only with a header.
        boolean quiet = loopSide != null
                ? loopSide.awaitingRequest() && requestPermits.availablePermits() == REQUESTS_IN_FLIGHT_MAX
                : awaitingRequest && requestPermits.availablePermits() == REQUESTS_IN_FLIGHT_MAX - 1;
        if (!quiet || readBytes != seenReadBytes) {
            seenReadBytes = readBytes;
            quietSinceNs = nowNs;
            return null;
        }
        return !limits.idleTimeout().isZero() && nowNs - quietSinceNs >= limits.idleTimeout().toNanos()
                ? Timeout.IDLE : null;
    }

    /** Closes the connection at once because of {@code timeout}; the reader then winds down. */
    void close(Timeout timeout) {
        closedBy = timeout;
        forceClose();
    }

    /** True once transmission runs on the loop thread ({@link LoopTransport}); any thread. */
    boolean servedOnLoop() {
        return onLoop != null;
    }

    /** The export this connection serves, or null before its handshake ends; any thread. */
    Export export() {
        return export;
    }

    /** The client's address, for log lines. */
    String peer() {
        return peer;
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
            context.counters().clientsGone.incrementAndGet();
        }
        LoopTransport loopSide = onLoop;
        if (loopSide != null) {
            loopSide.closedElsewhere(); // the loop learns of a close only when told
        }
    }

    /** Waits until the connection has ended, at most {@code timeoutNs}. */
    boolean awaitClosed(long timeoutNs) throws InterruptedException {
        return closed.await(timeoutNs, TimeUnit.NANOSECONDS);
    }
}

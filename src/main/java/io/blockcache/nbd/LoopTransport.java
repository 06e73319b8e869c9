package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.log.EventName;
import io.blockcache.loop.ChannelLoop;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * The transmission phase of one plain-TCP connection, served on the volumes' loop thread itself: the loop reads
 * request frames from the non-blocking socket when it is ready, carries each request out at once and writes the
 * replies, so a request the page cache serves (see {@code device.InlineIoPolicy}) never leaves the loop thread.
 * The threaded path (a reader and a {@link ReplyWriter} per connection, on virtual threads) paid two thread
 * wake-ups per request round (docs/BENCHMARKS.md); TLS connections still take it.
 *
 * <p>The same rules as the threaded reader: at most {@link Connection#REQUESTS_IN_FLIGHT_MAX} requests in flight;
 * a request takes its budget before its buffer is allocated; nothing half-received reaches a volume; a refused
 * WRITE's payload is consumed before it is answered; every reply is written or dropped and then reported, so that
 * its permit, budget and buffer come back. Where the threaded reader would block, this one stops reading the
 * socket (TCP then pushes back on the client): for a permit until a reply is out, for budget held by other
 * connections until a retry {@link #BUDGET_RETRY_NS} later. Replies go out through {@link LoopReplies}.
 *
 * <p>Ending: on DISC, end of stream, a protocol violation, an I/O error or a close from elsewhere (the watchdog,
 * shutdown) reading stops for good and the connection's own thread is told; it then waits for every reply as
 * before ({@link Connection}).
 *
 * <p>Allocation: requests are {@link InFlightRequest} objects reused from this connection's
 * {@link RequestPool}; a header is decoded straight into one, and one goes back to the pool once its reply has been
 * written or dropped and reported (which frees its permit, budget and buffer first). Refusals, budget waits and
 * buffers too large for the pool still allocate (rare paths).
 *
 * <p>Thread rule: the loop thread, except {@link #start}, {@link #closedElsewhere} and the getters (any thread).
 */
final class LoopTransport {
    /** Input taken per ready event before other channels and tasks get their turn. */
    static final int READ_BYTES_PER_TURN_MAX = 256 << 10;
    /** How soon a connection waiting for budget held by other connections tries again. */
    static final long BUDGET_RETRY_NS = 1_000_000L;

    private final ChannelLoop loop;
    private final SocketChannel channel;
    private final ConnectionContext context;
    private final Session session;
    private final String peer;
    private final Semaphore requestPermits;
    private final ConnectionBudget budget;
    /** Input read and not yet taken, position to limit (handed over by the handshake's {@link FrameReader}). */
    private final ByteBuffer staging;
    private final Consumer<Exception> inputEnded;
    private final Consumer<InFlightRequest> written;
    private final RequestPool pool;
    private SelectionKey key;
    private int interestOps = -1;

    // Input state (loop thread).
    /** The WRITE whose payload is being read, or null; {@link #payload} is its buffer. */
    private InFlightRequest filling;
    private ByteBuffer payload;
    /** Payload bytes still to drop, and the answer to send once they are gone. */
    private long skipBytesLeft;
    private Runnable afterSkip;
    /** A request that holds its permit and waits for budget. */
    private InFlightRequest waitingForBudget;
    private boolean paused;
    /** A request waits for its large buffer from {@link #allocateOffLoop}: nothing else is read meanwhile. */
    private boolean waitingForBuffer;
    private boolean resumeQueued;
    private boolean budgetRetryScheduled;
    private boolean reading = true;

    private final LoopReplies replies;

    private volatile long bytesRead;
    private volatile boolean awaitingRequest = true;

    private final Runnable resumeTask = this::resume;

    /**
     * @param staging the handshake's staging buffer with any bytes already read after it (a client may pipeline
     *     its first requests behind the last option)
     * @param written the connection's bookkeeping once a reply is out or dropped (frees permit, budget, buffer)
     * @param inputEnded told once, when reading has ended for good, why: null if the client ended the connection
     *     (DISC, or a hang-up between requests); on the loop thread, or on a closing thread if the loop has stopped
     */
    LoopTransport(ChannelLoop loop, SocketChannel channel, ConnectionContext context, Session session, String peer,
                  Semaphore requestPermits, ConnectionBudget budget, ByteBuffer staging,
                  Consumer<InFlightRequest> written, Consumer<Exception> inputEnded) {
        this.loop = loop;
        this.channel = channel;
        this.context = context;
        this.session = session;
        this.peer = peer;
        this.requestPermits = requestPermits;
        this.budget = budget;
        this.staging = staging;
        this.inputEnded = inputEnded;
        this.written = written;
        this.replies = new LoopReplies(loop, channel, this::replyWritten, this::updateInterest, this::endInput);
        this.pool = new RequestPool(session, replies, context.buffers());
    }

    /** A reply was written or dropped: the connection frees what the request held, then the request is reused. */
    private void replyWritten(InFlightRequest request) {
        written.accept(request);
        pool.giveBack(request);
        if (paused && reading) {
            queueResume(); // a permit (and budget) just came back
        }
    }

    /** Where this connection's replies go. */
    ReplySink replies() {
        return replies;
    }

    /** Makes the socket non-blocking and hands it to the loop. Any thread (the connection's, after the handshake). */
    void start() throws IOException {
        channel.configureBlocking(false);
        try {
            loop.execute(this::register);
        } catch (IllegalStateException stopped) {
            throw new IOException("the server is shutting down", stopped);
        }
    }

    /**
     * The socket was closed by another thread (watchdog, shutdown): stop reading and drop unsent replies. Any
     * thread. If the loop has stopped, nobody can read any more: reading ends here.
     */
    void closedElsewhere() {
        try {
            loop.execute(() -> {
                endInput(new AsynchronousCloseException());
                replies.dropAll();
            });
        } catch (IllegalStateException loopStopped) {
            inputEnded.accept(new AsynchronousCloseException());
        }
    }

    /** Bytes read by the loop so far (the handshake's are the {@link FrameReader}'s); any thread. */
    long bytesRead() {
        return bytesRead;
    }

    /** True while no part of a request has arrived since the last one was taken; any thread. */
    boolean awaitingRequest() {
        return awaitingRequest;
    }

    // ---- input ------------------------------------------------------------------------------------------------

    private void register() {
        try {
            key = loop.register(channel, 0, this::ready);
        } catch (IOException e) { // closed before the loop got it
            endInput(e);
            return;
        }
        updateInterest();
        pump(); // requests that arrived with the handshake's last bytes
    }

    private void ready(int readyOps) {
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            replies.flush();
        }
        if ((readyOps & SelectionKey.OP_READ) != 0) {
            pump();
        }
    }

    /** Takes requests from the staging buffer and the socket until it would block, pauses or has had its turn. */
    private void pump() {
        long readThisTurn = 0;
        try {
            while (reading && !paused) {
                if (takeFromStaging()) {
                    continue;
                }
                if (readThisTurn >= READ_BYTES_PER_TURN_MAX) {
                    queueResume(); // level-triggered readiness would bring it back too; bytes in staging would not
                    return;
                }
                int n = readInput();
                if (n == 0) {
                    return;
                }
                if (n < 0) {
                    endOfStream();
                    return;
                }
                readThisTurn += n;
            }
        } catch (ProtocolException | IOException e) {
            endInput(e);
        } finally {
            updateInterest();
        }
    }

    /**
     * Takes one step from the staging buffer: a header, a piece of payload or of a skip. Returns false if it needs
     * more input (or paused).
     */
    private boolean takeFromStaging() throws ProtocolException {
        if (waitingForBudget != null) {
            InFlightRequest request = waitingForBudget;
            waitingForBudget = null;
            admitWithBudget(request, false);
            return !paused;
        }
        if (filling != null) {
            int n = Math.min(staging.remaining(), payload.remaining());
            if (n == 0) {
                return false;
            }
            payload.put(payload.position(), staging, staging.position(), n);
            payload.position(payload.position() + n);
            staging.position(staging.position() + n);
            if (!payload.hasRemaining()) {
                payloadComplete();
            }
            return true;
        }
        if (afterSkip != null) {
            int n = (int) Math.min(staging.remaining(), skipBytesLeft);
            staging.position(staging.position() + n);
            skipBytesLeft -= n;
            if (skipBytesLeft == 0) {
                Runnable answer = afterSkip;
                afterSkip = null;
                answer.run();
                return true;
            }
            return false;
        }
        awaitingRequest = !staging.hasRemaining();
        if (staging.remaining() < REQUEST_HEADER_BYTES) {
            return false;
        }
        if (!requestPermits.tryAcquire()) {
            pause();
            return false;
        }
        InFlightRequest request = pool.take();
        try {
            TransmissionCodec.decodeRequest(staging, request);
        } catch (ProtocolException e) {
            requestPermits.release();
            throw e;
        }
        awaitingRequest = false;
        if (request.type() == CMD_DISC) {
            requestPermits.release();
            endInput(null);
            return false;
        }
        admit(request);
        return true;
    }

    /** As {@link Connection}'s admit: refusals first, holding no budget, then budget, buffer and payload. */
    private void admit(InFlightRequest request) throws ProtocolException {
        boolean write = request.type() == CMD_WRITE;
        long lengthBytes = request.lengthBytes();
        if ((write || request.type() == CMD_READ) && lengthBytes > Connection.REQUEST_BYTES_MAX) {
            if (write && lengthBytes > Connection.REFUSED_PAYLOAD_BYTES_MAX) {
                requestPermits.release();
                throw new ProtocolException("WRITE of " + lengthBytes + " bytes: too large to consume");
            }
            refuseAfter(write ? lengthBytes : 0, request, new RequestCheck.Refusal(EINVAL, "length " + lengthBytes
                    + " exceeds the maximum of " + Connection.REQUEST_BYTES_MAX + " bytes"));
            return;
        }
        RequestCheck.Refusal refusal = RequestCheck.refusal(request, session);
        if (refusal != null) {
            refuseAfter(write ? lengthBytes : 0, request, refusal); // no budget or buffer for a bad request
            return;
        }
        admitWithBudget(request, true);
    }

    private void admitWithBudget(InFlightRequest request, boolean firstTry) {
        int bufferLengthBytes = ConnectionBudget.bufferLengthBytes(request);
        long bufferBytes = ConnectionBudget.bytesFor(bufferLengthBytes);
        if (!budget.tryTake(bufferBytes, firstTry)) {
            waitingForBudget = request;
            pause();
            if (!budgetRetryScheduled) {
                budgetRetryScheduled = true;
                loop.schedule(BUDGET_RETRY_NS, () -> {
                    budgetRetryScheduled = false;
                    queueResume();
                });
            }
            return;
        }
        if (bufferLengthBytes > PayloadBuffers.LARGEST_CLASS_BYTES) {
            allocateOffLoop(request, bufferLengthBytes, bufferBytes);
            return;
        }
        ByteBuffer buffer;
        try {
            buffer = bufferLengthBytes == 0 ? null : context.buffers().take(bufferLengthBytes);
        } catch (OutOfMemoryError e) {
            noBuffer(request, bufferLengthBytes, bufferBytes, e);
            return;
        }
        begin(request, buffer, bufferBytes);
    }

    /**
     * A buffer larger than the pool's classes is new direct memory, zeroed as it is allocated: up to 64 MiB, tens
     * of milliseconds. Allocated on a virtual thread of its own while this connection pauses, so the loop's turn
     * stays short; such requests are rare (clients split at the preferred block size), so the hand-off costs little.
     */
    private void allocateOffLoop(InFlightRequest request, int bufferLengthBytes, long bufferBytes) {
        waitingForBuffer = true;
        pause();
        Thread.ofVirtual().name("nbd-allocate").start(() -> {
            ByteBuffer buffer = null;
            OutOfMemoryError failure = null;
            try {
                buffer = context.buffers().take(bufferLengthBytes);
            } catch (OutOfMemoryError e) {
                failure = e;
            }
            ByteBuffer allocated = buffer;
            OutOfMemoryError failed = failure;
            try {
                loop.execute(() -> bufferAllocated(request, bufferLengthBytes, bufferBytes, allocated, failed));
            } catch (IllegalStateException loopStopped) {
                if (allocated != null) {
                    context.buffers().release(allocated); // nobody will serve this connection any more
                }
                budget.give(bufferBytes);
            }
        });
    }

    private void bufferAllocated(InFlightRequest request, int bufferLengthBytes, long bufferBytes, ByteBuffer buffer,
                                 OutOfMemoryError failure) {
        waitingForBuffer = false;
        if (!reading) { // the connection ended meanwhile: give back what the request held
            if (buffer != null) {
                context.buffers().release(buffer);
            }
            budget.give(bufferBytes);
            requestPermits.release();
            return;
        }
        if (failure != null) {
            noBuffer(request, bufferLengthBytes, bufferBytes, failure);
        } else {
            begin(request, buffer, bufferBytes);
        }
        resume();
    }

    private void noBuffer(InFlightRequest request, int bufferLengthBytes, long bufferBytes, OutOfMemoryError e) {
        // The budget should keep direct memory below the JVM's limit, but other users of direct memory (or a limit
        // set below the budget) can still make this fail: fail this request, not the server.
        budget.give(bufferBytes);
        context.counters().allocationFailures.incrementAndGet();
        context.log().line(EventName.NBD_OUT_OF_MEMORY, peer, "no memory for a " + bufferLengthBytes
                + "-byte buffer (" + e.getMessage() + "); request answered ENOMEM");
        skipThen(request.type() == CMD_WRITE ? request.lengthBytes() : 0,
                () -> answerNow(request, ENOMEM, "the server is short of buffer memory; retry later"));
    }

    /** Starts a request that holds its permit, budget and buffer: reads its payload first if it has one. */
    private void begin(InFlightRequest request, ByteBuffer buffer, long bufferBytes) {
        request.hold(buffer, bufferBytes);
        if (request.type() == CMD_WRITE && request.lengthBytes() > 0) {
            filling = request;
            payload = buffer;
        } else {
            carryOut(request);
        }
    }

    private void payloadComplete() {
        InFlightRequest request = filling;
        payload.flip();
        filling = null;
        payload = null;
        carryOut(request);
    }

    private void carryOut(InFlightRequest request) {
        context.counters().idle.begin();
        CommandExecutor.execute(request); // its reply comes through send(), now or from a later completion
    }

    private void refuseAfter(long payloadBytes, InFlightRequest request, RequestCheck.Refusal refusal) {
        if (refusal.error() != ENOTSUP) { // FAST_ZERO probes (qemu-img) are no client error
            context.log().line(EventName.NBD_REQUEST_REFUSED, peer, "request " + request.type()
                    + " refused with error " + refusal.error() + ": " + refusal.message());
        }
        skipThen(payloadBytes, () -> answerNow(request, refusal.error(), refusal.message()));
    }

    private void skipThen(long payloadBytes, Runnable answer) {
        if (payloadBytes == 0) {
            answer.run();
        } else {
            skipBytesLeft = payloadBytes;
            afterSkip = answer;
        }
    }

    /** Answers a request that holds its permit and nothing else. */
    private void answerNow(InFlightRequest request, int error, String message) {
        context.counters().idle.begin();
        request.error(error, message);
    }

    /** Reads into the payload directly when it is large and nothing is staged, else into the staging buffer. */
    private int readInput() throws IOException {
        int n;
        if (filling != null && !staging.hasRemaining() && payload.remaining() >= FrameReader.STAGING_BYTES) {
            n = channel.read(payload);
            if (n > 0 && !payload.hasRemaining()) {
                payloadComplete();
            }
        } else {
            staging.compact();
            try {
                n = channel.read(staging);
            } finally {
                staging.flip();
            }
        }
        if (n > 0) {
            bytesRead += n; // only the loop writes it
        }
        return n;
    }

    private void endOfStream() throws EOFException {
        if (filling == null && afterSkip == null && waitingForBudget == null && !staging.hasRemaining()) {
            endInput(null); // the client hung up between requests (fio's first connection does)
            return;
        }
        throw new EOFException("stream ended inside a request");
    }

    /** Stops reading for good; gives back what a half-received request holds. Idempotent. */
    private void endInput(Exception cause) {
        if (!reading) {
            return;
        }
        reading = false;
        if (filling != null) { // a truncated payload is never written anywhere
            filling.releaseBuffers();
            budget.give(filling.bufferBytes());
            requestPermits.release();
            filling = null;
            payload = null;
        }
        // A request waiting for its buffer keeps its permit until the buffer arrives (bufferAllocated).
        if (waitingForBudget != null || afterSkip != null) {
            requestPermits.release();
            waitingForBudget = null;
            afterSkip = null;
        }
        updateInterest();
        inputEnded.accept(cause);
    }

    private void pause() {
        paused = true;
        updateInterest();
    }

    private void queueResume() {
        if (!resumeQueued) {
            resumeQueued = true;
            loop.execute(resumeTask);
        }
    }

    private void resume() {
        resumeQueued = false;
        if (waitingForBuffer) {
            return; // bufferAllocated resumes
        }
        paused = false;
        pump();
    }

    private void updateInterest() {
        if (key == null || !key.isValid()) {
            return;
        }
        int ops = (reading && !paused ? SelectionKey.OP_READ : 0)
                | (replies.waitingForSocket() ? SelectionKey.OP_WRITE : 0);
        if (ops != interestOps) {
            interestOps = ops;
            key.interestOps(ops);
        }
    }
}

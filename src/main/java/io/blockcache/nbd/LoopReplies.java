package io.blockcache.nbd;

import io.blockcache.loop.ChannelLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * The reply side of a connection the loop serves ({@link LoopTransport}): replies queued in one loop turn leave in
 * one non-blocking gathering write after it; what the socket does not take waits until it is writable (the
 * transport asks for OP_WRITE while {@link #waitingForSocket}). Once a write fails, or the socket was closed
 * elsewhere ({@link #dropAll}), every queued and later reply is dropped; either way each is reported once, so its
 * request's permit, budget and buffer come back.
 *
 * <p>Allocation: replies wait in a ring of the requests holding them (bounded by the requests in
 * flight), and are gathered into one reused array; what is left per batch of replies is the loop task that flushes
 * them after the turn (the loop's queue node).
 *
 * <p>Thread rule: the loop thread (a {@link #send} from elsewhere is moved onto it), except the getters.
 */
final class LoopReplies implements ReplySink {
    /** Replies per gathering write, as the threaded writer. */
    static final int REPLIES_PER_WRITE_MAX = ReplyWriter.BATCH_REPLIES_MAX;

    private final ChannelLoop loop;
    private final SocketChannel channel;
    private final Consumer<InFlightRequest> written;
    private final Runnable interestChanged;
    private final Consumer<IOException> failed;
    /**
     * Requests whose replies wait, oldest first: {@code [unsentHead, + unsentCount)} modulo the length. Every one
     * holds one of the connection's permits, so the ring never holds more than the requests in flight.
     */
    private final InFlightRequest[] unsent = new InFlightRequest[Connection.REQUESTS_IN_FLIGHT_MAX];
    private int unsentHead;
    private int unsentCount;
    private ByteBuffer[] gather = new ByteBuffer[2 * REPLIES_PER_WRITE_MAX];
    private int gatheredReplies;
    private boolean flushQueued;
    private boolean broken;
    private volatile long bytesWritten;
    private volatile boolean writing;
    private final Runnable flushTask = this::flush;

    /**
     * @param written told once per reply written or dropped
     * @param interestChanged told when {@link #waitingForSocket} may have changed
     * @param failed told when a write failed (the client is gone)
     */
    LoopReplies(ChannelLoop loop, SocketChannel channel, Consumer<InFlightRequest> written, Runnable interestChanged,
                Consumer<IOException> failed) {
        this.loop = loop;
        this.channel = channel;
        this.written = written;
        this.interestChanged = interestChanged;
        this.failed = failed;
    }

    @Override
    public long bytesWritten() {
        return bytesWritten;
    }

    @Override
    public boolean writing() {
        return writing;
    }

    /** True while replies wait for the socket to take more. */
    boolean waitingForSocket() {
        return unsentCount > 0 && !broken;
    }

    /** The socket is gone: drops every queued reply and every later one (each still reported). */
    void dropAll() {
        broken = true;
        flush();
    }

    @Override
    public void send(InFlightRequest request) {
        if (!loop.inLoop()) { // never expected: every reply of a loop connection is made on the loop
            loop.execute(() -> send(request));
            return;
        }
        if (unsentCount == unsent.length) {
            throw new IllegalStateException("reply ring full: more replies than requests in flight");
        }
        unsent[(unsentHead + unsentCount) % unsent.length] = request;
        unsentCount++;
        writing = true;
        if (!flushQueued) {
            flushQueued = true;
            loop.execute(flushTask); // after this turn's other completions: one write for all their replies
        }
    }

    /**
     * Writes what the socket takes now (at the end of a turn, or when it is writable again); what it does not take
     * waits for OP_WRITE.
     */
    void flush() {
        flushQueued = false;
        try {
            while (unsentCount > 0 && !broken) {
                int buffers = gatherUnsent();
                long n = channel.write(gather, 0, buffers);
                bytesWritten += n; // only the loop writes it
                java.util.Arrays.fill(gather, 0, buffers, null);
                if (!reportWritten(gatheredReplies)) {
                    break; // the socket is full: wait for OP_WRITE
                }
            }
        } catch (IOException e) {
            broken = true;
            failed.accept(e);
        }
        if (broken) {
            while (unsentCount > 0) {
                report(pollUnsent());
            }
        }
        writing = unsentCount > 0;
        interestChanged.run();
    }

    /** Gathers the first replies into {@link #gather}; returns the buffers, sets {@link #gatheredReplies}. */
    private int gatherUnsent() {
        int count = 0;
        int replies = 0;
        for (int i = 0; i < unsentCount; i++) {
            InFlightRequest request = unsent[(unsentHead + i) % unsent.length];
            int parts = request.replyPartCount();
            if (replies == REPLIES_PER_WRITE_MAX || count + parts > gather.length) {
                if (count == 0) {
                    gather = new ByteBuffer[parts]; // one reply of many chunks: give it room
                } else {
                    break;
                }
            }
            for (int part = 0; part < parts; part++) {
                gather[count++] = request.replyPart(part);
            }
            replies++;
        }
        gatheredReplies = replies;
        return count;
    }

    /** Reports each of the first {@code gathered} replies now wholly written; returns true if all of them are. */
    private boolean reportWritten(int gathered) {
        for (int i = 0; i < gathered; i++) {
            InFlightRequest oldest = unsent[unsentHead];
            for (int part = 0; part < oldest.replyPartCount(); part++) {
                if (oldest.replyPart(part).hasRemaining()) {
                    return false;
                }
            }
            report(pollUnsent());
        }
        return true;
    }

    /** Takes the oldest waiting reply's request off the ring. */
    private InFlightRequest pollUnsent() {
        InFlightRequest oldest = unsent[unsentHead];
        unsent[unsentHead] = null;
        unsentHead = (unsentHead + 1) % unsent.length;
        unsentCount--;
        return oldest;
    }

    /** Off the ring first: what {@code written} does with the request (give it back for reuse) is then safe. */
    private void report(InFlightRequest request) {
        written.accept(request);
    }
}

package io.blockcache.nbd;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes one connection's replies on its own virtual thread, so the loop only ever enqueues and never touches
 * a socket. Replies queued together go out in one gathering write.
 *
 * <p>Wake-ups: the queue is lock-free and {@link #send} wakes the writer only if it is parked, so the loop pays
 * neither a lock nor an unpark for a reply queued while the writer is still busy with the previous batch (a
 * profile of 4 KiB reads at QD32 showed ~15% of the loop thread in the blocking queue's lock and in unparking
 * the writer for every reply).
 *
 * <p>Bound: the queue holds at most {@link Connection#REQUESTS_IN_FLIGHT_MAX} replies plus the stop marker,
 * because every reply belongs to a request that holds one of the connection's in-flight permits; so
 * {@link #send} never blocks the loop. Once a write fails (the client went away), later replies are dropped,
 * but each one is still handed to {@code written} so that its request's permits are released.
 *
 * <p>Thread rule: {@link #send} from any thread (the loop, or the reader for early errors).
 */
final class ReplyWriter implements ReplySink {
    /** Replies taken per gathering write: many small replies, one system call. */
    static final int BATCH_REPLIES_MAX = 64;

    /**
     * One queued reply: the request holding it. A TLS connection's replies still take one of these each (and the
     * queue's node): the reuse of requests is for the connections the loop serves.
     */
    private record Reply(InFlightRequest request) {
    }

    private static final Reply STOP = new Reply(null);

    private final GatheringByteChannel out;
    /** Replies queued at most: one per request in flight, plus the stop marker. */
    private static final int QUEUED_REPLIES_MAX = Connection.REQUESTS_IN_FLIGHT_MAX + 1;

    private final ConcurrentLinkedQueue<Reply> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queuedCount = new AtomicInteger();
    /** True while the writer is parked, or about to park, waiting for replies. */
    private final AtomicBoolean parked = new AtomicBoolean();
    private final java.util.function.Consumer<InFlightRequest> written;
    private final Thread thread;
    private volatile boolean broken;
    /** Bytes written so far and whether a write is under way: the watchdog's view of a stalled client. */
    private volatile long bytesWritten;
    private volatile boolean writing;
    private volatile boolean endTlsSession;

    /**
     * @param written told, on the writer thread, once each reply has been written or dropped
     */
    ReplyWriter(GatheringByteChannel out, String name, java.util.function.Consumer<InFlightRequest> written) {
        this.out = out;
        this.written = written;
        this.thread = Thread.ofVirtual().name(name).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Queues a reply. */
    @Override
    public void send(InFlightRequest request) {
        send(new Reply(request));
    }

    private void send(Reply reply) {
        if (queuedCount.incrementAndGet() > QUEUED_REPLIES_MAX) {
            throw new IllegalStateException("reply queue full: more replies than requests in flight");
        }
        queue.offer(reply);
        if (parked.get() && parked.compareAndSet(true, false)) {
            LockSupport.unpark(thread);
        }
    }

    /** True once a write has failed. */
    boolean broken() {
        return broken;
    }

    @Override
    public long bytesWritten() {
        return bytesWritten;
    }

    @Override
    public boolean writing() {
        return writing;
    }

    /** Asks the writer to end after the replies already queued, and waits for it. */
    void stopAndJoin() throws InterruptedException {
        stopAndJoin(false);
    }

    /**
     * As {@link #stopAndJoin()}; with {@code endTlsSession}, a TLS connection's last write is TLS's close_notify
     * (the spec: on DISC the server MUST close the TLS session, then the TCP connection). It counts as a reply
     * being written, so the watchdog's reply stall timeout bounds it when the client does not read.
     */
    void stopAndJoin(boolean endTlsSession) throws InterruptedException {
        this.endTlsSession = endTlsSession;
        send(STOP); // the queue's hand-off orders the flag before the writer sees STOP
        thread.join();
    }

    private void run() {
        List<Reply> batch = new ArrayList<>(BATCH_REPLIES_MAX);
        List<ByteBuffer> buffers = new ArrayList<>();
        boolean stopping = false;
        while (!stopping) {
            takeBatch(batch);
            for (Reply reply : batch) {
                if (reply == STOP) {
                    stopping = true;
                } else {
                    for (int i = 0; i < reply.request().replyPartCount(); i++) {
                        buffers.add(reply.request().replyPart(i));
                    }
                }
            }
            try {
                writeAll(buffers.toArray(ByteBuffer[]::new));
            } catch (OutOfMemoryError e) {
                // Even then every reply of the batch must reach `written` below, or its request's permits and
                // budget would never come back; drop the client instead (the server's other connections go on).
                fail();
            }
            for (Reply reply : batch) {
                if (reply != STOP) {
                    written.accept(reply.request());
                }
            }
            batch.clear();
            buffers.clear();
        }
        if (endTlsSession && !broken && out instanceof TlsChannel tls) {
            writing = true;
            try {
                tls.closeNotify();
            } catch (IOException e) {
                fail();
            } finally {
                writing = false;
            }
        }
    }

    /** Waits for at least one reply, then takes up to {@link #BATCH_REPLIES_MAX} of them. */
    private void takeBatch(List<Reply> batch) {
        Reply reply;
        while ((reply = queue.poll()) == null) {
            parked.set(true);
            // Re-check after announcing the park: a reply queued before the flag was set saw no parked writer.
            if (!queue.isEmpty()) {
                parked.set(false);
                continue;
            }
            // Wakes on unpark from send, or spuriously, or on interrupt; either way the loop polls again. Nobody
            // interrupts this thread but shutdown, which then sends STOP: clear the flag so park keeps blocking.
            LockSupport.park(this);
            Thread.interrupted();
            parked.set(false);
        }
        do {
            batch.add(reply);
        } while (batch.size() < BATCH_REPLIES_MAX && (reply = queue.poll()) != null);
        queuedCount.addAndGet(-batch.size());
    }

    private void writeAll(ByteBuffer[] buffers) {
        if (broken || buffers.length == 0) {
            return;
        }
        writing = true;
        try {
            long left = 0;
            for (ByteBuffer buffer : buffers) {
                left += buffer.remaining();
            }
            while (left > 0) {
                long n = out.write(buffers);
                left -= n;
                bytesWritten += n; // only this thread writes it
            }
        } catch (IOException e) {
            fail();
        } finally {
            writing = false;
        }
    }

    private void fail() {
        broken = true;
        try {
            out.close(); // wakes the reader too, so the connection winds down
        } catch (IOException ignored) {
            // already failing; the connection is going away either way
        }
    }
}

package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import java.util.concurrent.Semaphore;

/**
 * One connection's share of the server's {@link BufferBudget}: what a request's buffer costs, and taking and giving
 * back those bytes, first from the connection's own cap ({@link #CONNECTION_BUFFER_BYTES_MAX}, so one client cannot
 * hold every byte), then from the server's budget.
 *
 * <p>Thread rule: {@link #take} on the connection's reader (it blocks); {@link #tryTake} and {@link #give} from any
 * thread.
 */
final class ConnectionBudget {
    /** The largest buffer one request holds: the covering sectors of a maximum-size unaligned READ. */
    static final long REQUEST_BUFFER_BYTES_MAX =
            PayloadBuffers.directBytes(Connection.REQUEST_BYTES_MAX + Connection.ALIGNMENT_SLACK_BYTES);
    /** Buffer bytes one connection may hold: two maximum-size requests. */
    static final long CONNECTION_BUFFER_BYTES_MAX = 2 * REQUEST_BUFFER_BYTES_MAX;

    private final BufferBudget server;
    /** This connection's cap, in 4 KiB pages. */
    private final Semaphore pages;

    ConnectionBudget(BufferBudget server) {
        this.server = server;
        long capBytes = Math.min(server.bytesMax(), CONNECTION_BUFFER_BYTES_MAX);
        this.pages = new Semaphore((int) (capBytes / PayloadBuffers.ALIGNMENT_BYTES));
    }

    /** The buffer a request needs: its payload, its READ reply's covering sectors, or a CACHE chunk; 0 for none. */
    static int bufferLengthBytes(RequestHeader header) {
        long lengthBytes = header.lengthBytes();
        return switch (header.type()) {
            case CMD_WRITE -> (int) lengthBytes;
            case CMD_READ -> lengthBytes == 0 ? 0 : (int) lengthBytes + Connection.ALIGNMENT_SLACK_BYTES;
            case CMD_CACHE -> lengthBytes == 0 ? 0 : CacheWarmer.CHUNK_BYTES;
            default -> 0;
        };
    }

    /** What a buffer of {@code lengthBytes} is charged: its direct bytes, or 0 without a buffer. */
    static long bytesFor(int lengthBytes) {
        return lengthBytes == 0 ? 0 : PayloadBuffers.directBytes(lengthBytes);
    }

    /** Takes {@code bytes} from this connection's cap and then the server's budget, waiting for either. */
    void take(long bytes) throws InterruptedException {
        int count = (int) (bytes / PayloadBuffers.ALIGNMENT_BYTES);
        pages.acquire(count);
        try {
            server.acquire(bytes);
        } catch (InterruptedException e) {
            pages.release(count);
            throw e;
        }
    }

    /** Gives back bytes from {@link #take}. */
    /**
     * Takes {@code bytes} if both the connection's cap and the server's budget have them free now; never blocks.
     * Returns false, having taken nothing, otherwise; {@code firstTry} counts a server-budget wait once.
     */
    boolean tryTake(long bytes, boolean firstTry) {
        int count = (int) (bytes / PayloadBuffers.ALIGNMENT_BYTES);
        if (!pages.tryAcquire(count)) {
            return false;
        }
        if (!server.tryAcquire(bytes)) {
            pages.release(count);
            if (firstTry) {
                server.countWait();
            }
            return false;
        }
        return true;
    }

    void give(long bytes) {
        server.release(bytes);
        pages.release((int) (bytes / PayloadBuffers.ALIGNMENT_BYTES));
    }
}

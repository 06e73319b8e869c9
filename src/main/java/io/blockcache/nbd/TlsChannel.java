package io.blockcache.nbd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SocketChannel;

/**
 * A TLS session's plaintext streams seen as the channel a connection reads frames from and writes replies to,
 * so that {@link FrameReader}, {@link Negotiation} and {@link ReplyWriter} work unchanged over TLS. The streams
 * come from an {@code SSLSocket} layered over the connection's socket (X.509) or from BouncyCastle's
 * {@code TlsServerProtocol} (PSK); both allow one thread reading while another writes, which is how a
 * connection uses them (its reader and its {@link ReplyWriter}).
 *
 * <p>Writes copy through one array of {@link #COPY_BYTES} and are flushed at the end of each call, so replies
 * queued together still leave as few, full TLS records. {@link #close} closes the socket underneath at once; a
 * connection the client ended sends TLS's close_notify first ({@link #closeNotify}), as the NBD spec asks.
 *
 * <p>Thread rule: one reading thread and one writing thread at a time; {@link #close} from any thread.
 */
final class TlsChannel implements ByteChannel, GatheringByteChannel {
    /** Copy size each way: 16 KiB is TLS's largest record (RFC 8446 §5.1), so a full copy fills one record. */
    static final int COPY_BYTES = 16 << 10;

    /** Sends the TLS close_notify alert. */
    interface CloseNotify {
        void send() throws IOException;
    }

    private final SocketChannel socket;
    private final CloseNotify closeNotify;
    /** The PSK identity the handshake authenticated; null for X.509. */
    private final String pskIdentity;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] readCopy = new byte[COPY_BYTES];
    private final byte[] writeCopy = new byte[COPY_BYTES];

    /**
     * @param socket the plain socket underneath, closed by {@link #close}
     * @param in the session's plaintext input
     * @param out the session's plaintext output
     * @param closeNotify sends the session's close_notify
     */
    TlsChannel(SocketChannel socket, InputStream in, OutputStream out, CloseNotify closeNotify) {
        this(socket, in, out, closeNotify, null);
    }

    /** As above for a PSK session that authenticated {@code pskIdentity}. */
    TlsChannel(SocketChannel socket, InputStream in, OutputStream out, CloseNotify closeNotify, String pskIdentity) {
        this.pskIdentity = pskIdentity;
        this.socket = socket;
        this.closeNotify = closeNotify;
        this.in = in;
        this.out = out;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        requireOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        int n = in.read(readCopy, 0, Math.min(dst.remaining(), COPY_BYTES));
        if (n > 0) {
            dst.put(readCopy, 0, n);
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /** Writes every byte of the buffers (blocking), then flushes; returns the bytes written. */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        requireOpen();
        long written = 0;
        int filled = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer src = srcs[i];
            while (src.hasRemaining()) {
                int n = Math.min(src.remaining(), COPY_BYTES - filled);
                src.get(writeCopy, filled, n);
                filled += n;
                written += n;
                if (filled == COPY_BYTES) {
                    out.write(writeCopy, 0, filled);
                    filled = 0;
                }
            }
        }
        if (filled > 0) {
            out.write(writeCopy, 0, filled);
        }
        out.flush();
        return written;
    }

    /**
     * Ends the TLS session cleanly (close_notify), after the last reply; may block while the client does not read,
     * so the caller bounds it (the connection's watchdog). The socket is closed with {@link #close}.
     */
    void closeNotify() throws IOException {
        closeNotify.send();
    }

    /** The PSK identity (user name) the handshake authenticated; null for an X.509 session. */
    String pskIdentity() {
        return pskIdentity;
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private void requireOpen() throws ClosedChannelException {
        if (!socket.isOpen()) {
            throw new ClosedChannelException();
        }
    }
}

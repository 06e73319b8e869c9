package io.blockcache.nbd;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads whole frames from a blocking channel through a small staging buffer, so that a stream of 28-byte
 * request headers costs one system call per many headers, while large payloads are read straight into their
 * own buffer. Thread rule: the connection's reader thread only ({@link #bytesRead} any thread).
 */
final class FrameReader {
    /**
     * 64 KiB: many headers per read, small enough to be negligible per connection. Direct, so a socket read
     * lands in it without the JDK's extra copy through a temporary direct buffer.
     */
    static final int STAGING_BYTES = 64 << 10;

    /** The socket, or the TLS session over it once the client started TLS ({@link #switchTo}). */
    private ReadableByteChannel channel;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_BYTES).flip();
    /** Volatile: the watchdog reads it to tell a quiet connection from a busy one. */
    private volatile long bytesRead;

    FrameReader(ReadableByteChannel channel) {
        this.channel = channel;
    }

    /**
     * Fills {@code dst}; returns false if the stream ended cleanly before its first byte (a client that hangs
     * up between frames).
     *
     * @throws EOFException if the stream ended inside the frame (a truncated frame)
     */
    boolean readFrameOrEnd(ByteBuffer dst) throws IOException {
        if (!staging.hasRemaining() && !refill()) {
            return false;
        }
        readFully(dst);
        return true;
    }

    /** Fills {@code dst} completely. @throws EOFException if the stream ends first */
    void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (staging.hasRemaining()) {
                int n = Math.min(staging.remaining(), dst.remaining());
                dst.put(dst.position(), staging, staging.position(), n);
                dst.position(dst.position() + n);
                staging.position(staging.position() + n);
            } else if (dst.remaining() >= STAGING_BYTES) {
                int n = channel.read(dst);
                if (n < 0) {
                    throw new EOFException("stream ended with " + dst.remaining() + " bytes of a frame missing");
                }
                bytesRead += n;
            } else if (!refill()) {
                throw new EOFException("stream ended with " + dst.remaining() + " bytes of a frame missing");
            }
        }
    }

    /** Reads and drops {@code bytes} bytes (option data or a payload the server refuses). */
    void skip(long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            if (!staging.hasRemaining() && !refill()) {
                throw new EOFException("stream ended with " + left + " bytes still to skip");
            }
            int n = (int) Math.min(left, staging.remaining());
            staging.position(staging.position() + n);
            left -= n;
        }
    }

    /** Bytes read from the channel and not yet taken as frames. */
    int buffered() {
        return staging.remaining();
    }

    /** Reads from {@code next} from now on (the TLS session after STARTTLS); nothing may be buffered. */
    void switchTo(ReadableByteChannel next) {
        if (staging.hasRemaining()) {
            throw new IllegalStateException(staging.remaining() + " bytes buffered from the previous channel");
        }
        channel = next;
    }

    /**
     * Hands the staging buffer, with the bytes read and not yet taken (position to limit), to whoever reads the
     * channel from now on ({@link LoopTransport}); this reader must not be used afterwards.
     */
    ByteBuffer takeStaging() {
        return staging;
    }

    /** Bytes taken from the channel so far. */
    long bytesRead() {
        return bytesRead;
    }

    private boolean refill() throws IOException {
        staging.clear();
        int n;
        do {
            n = channel.read(staging);
        } while (n == 0);
        staging.flip();
        if (n > 0) {
            bytesRead += n;
        }
        return n > 0;
    }
}

package io.blockcache.device;

import java.nio.ByteBuffer;

/**
 * Small writes to adjacent offsets, held by a {@link FileDevice} until the end of the loop turn so that they reach
 * the file in one channel call (the block layer's "plug", in the small).
 *
 * <p>Why: a log-structured cache appends every front-end write just after the previous one in its open bucket, so
 * the writes one loop turn takes from the sockets are adjacent on the cache device. On the bench machine a system
 * call costs more than the 4 KiB it copies (docs/bench-history/nbd.md "2026-12-03: writes and the NBD layer without
 * allocation": the cache file's {@code pwrite} was 22 % of the loop in 4 KiB random writes, the paravirtual syscall
 * exit a fifth of all loop samples), so N adjacent writes in one call save N − 1 calls, each with its own file-time
 * update and inode lock.
 *
 * <p>Buffers: the first write is kept as the caller's own buffer, so a plug of one costs nothing over writing it at
 * once; when a second joins, both are copied into the plug's staging buffer (direct, made on the first join and kept
 * for the device's life), and so is every later one. The callers' buffers are not read after {@link #add} returns.
 *
 * <p>Thread rule: the owning loop's thread.
 */
final class WritePlug {
    /** Most bytes held: 32 pages, a few microseconds of copying on the loop. */
    static final int BYTES_MAX = 128 * 1024;
    /** Most writes held: one client's usual queue depth. */
    static final int REQUESTS_MAX = 32;

    /** Allocated when two writes first join: a device that never joins any (O_DIRECT, a backing file) holds none. */
    private ByteBuffer staging;
    private final IoCallback[] callbacks = new IoCallback[REQUESTS_MAX];
    private final long[] lengthBytes = new long[REQUESTS_MAX];
    private final long[] submittedNs = new long[REQUESTS_MAX];
    private int count;
    private long offsetBytes;
    private long endBytes;
    /** The first write's own buffer while it is alone; null once the writes are staged. */
    private ByteBuffer alone;

    /** True if no write is held. */
    boolean isEmpty() {
        return count == 0;
    }

    /** Writes held. */
    int count() {
        return count;
    }

    /** Byte offset of the first write held. */
    long offsetBytes() {
        return offsetBytes;
    }

    /**
     * True if a write of {@code lengthBytes} at {@code offsetBytes} can join: the plug is empty, or the write starts
     * where the held ones end and there is room for it.
     */
    boolean accepts(long offsetBytes, long lengthBytes) {
        if (count == 0) {
            return lengthBytes <= BYTES_MAX;
        }
        return offsetBytes == endBytes && count < REQUESTS_MAX
                && endBytes - this.offsetBytes + lengthBytes <= BYTES_MAX;
    }

    /** True if {@code [offsetBytes, + lengthBytes)} shares a byte with the writes held. */
    boolean overlaps(long offsetBytes, long lengthBytes) {
        return count > 0 && offsetBytes < endBytes && this.offsetBytes < offsetBytes + lengthBytes;
    }

    /** Holds one write; only if {@link #accepts} said so. */
    void add(long offsetBytes, ByteBuffer src, IoCallback callback, long submittedNs) {
        int bytes = src.remaining();
        if (!accepts(offsetBytes, bytes)) {
            throw new IllegalStateException("write of " + bytes + " bytes at " + offsetBytes + " does not join a plug"
                    + " of " + count + " writes at [" + this.offsetBytes + ", " + endBytes + ")");
        }
        if (count == 0) {
            this.offsetBytes = offsetBytes;
            alone = src;
        } else {
            if (alone != null) {
                if (staging == null) {
                    staging = ByteBuffer.allocateDirect(BYTES_MAX);
                }
                staging.clear();
                stage(alone);
                alone = null;
            }
            stage(src);
        }
        callbacks[count] = callback;
        lengthBytes[count] = bytes;
        this.submittedNs[count] = submittedNs;
        count++;
        endBytes = offsetBytes + bytes;
    }

    /** Copies {@code src}'s remaining bytes after the staged ones, leaving {@code src} as it was. */
    private void stage(ByteBuffer src) {
        int bytes = src.remaining();
        staging.put(staging.position(), src, src.position(), bytes);
        staging.position(staging.position() + bytes);
    }

    /**
     * The bytes of every write held, in offset order, from position to limit: the lone write's own buffer, or the
     * staging buffer. Once per plug, just before it is written; valid until {@link #clear}.
     */
    ByteBuffer data() {
        return alone != null ? alone : staging.flip();
    }

    /** The callback of held write {@code i}, in the order they joined. */
    IoCallback callback(int i) {
        return callbacks[i];
    }

    /** The length of held write {@code i}. */
    long lengthBytes(int i) {
        return lengthBytes[i];
    }

    /** The loop time held write {@code i} was submitted at. */
    long submittedNs(int i) {
        return submittedNs[i];
    }

    /** Empties the plug, keeping no reference to a caller's buffer or callback. */
    void clear() {
        for (int i = 0; i < count; i++) {
            callbacks[i] = null;
        }
        count = 0;
        alone = null;
        if (staging != null) {
            staging.clear();
        }
    }
}

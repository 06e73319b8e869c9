package io.blockcache.backing;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies of the writes an NBD server acknowledged since the last flush it acknowledged. Why: a server that goes
 * away (a restart, a crash, a network cut) may lose writes it acknowledged but never flushed, and the caller was
 * already told they completed. The client writes them again, in the order they completed, on the new
 * connection before anything else, so that "a flush makes durable every write completed before it" holds
 * across a reconnect (as long as the server kept what it had flushed, which is its promise).
 *
 * <p>Order: overlapping writes are never in flight together (the engine's {@code BackingWriteGate} orders them),
 * so completion order is their submission order, and replaying in completion order leaves the newest data.
 * Bound: {@link NbdDevice#REPLAY_BYTES_MAX}, kept by the device (it parks writes and flushes past it).
 *
 * <p>Thread rule: any thread (synchronized).
 */
final class ReplayLog {
    /**
     * One acknowledged write. @param seq its place in completion order, from 1 @param data its bytes, or null for a
     * WRITE_ZEROES of {@code lengthBytes} (no copy: nothing to keep but the range)
     */
    record Entry(long seq, long offsetBytes, byte[] data, long lengthBytes) {
        /** The bytes this entry holds in memory. */
        long heldBytes() {
            return data == null ? 0 : data.length;
        }
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long lastSeq;
    private long bytes;

    /** Copies an acknowledged write of {@code src} (position to limit, left unchanged) at {@code offsetBytes}. */
    synchronized void add(long offsetBytes, ByteBuffer src) {
        byte[] data = new byte[src.remaining()];
        src.duplicate().get(data);
        entries.addLast(new Entry(++lastSeq, offsetBytes, data, data.length));
        bytes += data.length;
    }

    /** Records an acknowledged WRITE_ZEROES of {@code lengthBytes} at {@code offsetBytes} (it holds no bytes). */
    synchronized void addZeroes(long offsetBytes, long lengthBytes) {
        entries.addLast(new Entry(++lastSeq, offsetBytes, null, lengthBytes));
    }

    /** The sequence of the newest entry (0 if none ever): what a flush sent now will make durable. */
    synchronized long lastSeq() {
        return lastSeq;
    }

    /** Forgets every entry up to {@code seq}: a flush sent after they completed succeeded. */
    synchronized void releaseUpTo(long seq) {
        while (!entries.isEmpty() && entries.peekFirst().seq() <= seq) {
            bytes -= entries.removeFirst().heldBytes();
        }
    }

    /** The entries to write again, oldest first. */
    synchronized List<Entry> snapshot() {
        return new ArrayList<>(entries);
    }

    /** Bytes held (zeroed ranges hold none). */
    synchronized long bytes() {
        return bytes;
    }

    /** Entries held. */
    synchronized int size() {
        return entries.size();
    }
}

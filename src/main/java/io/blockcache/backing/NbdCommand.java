package io.blockcache.backing;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.nbd.NbdProtocol;
import java.nio.ByteBuffer;

/**
 * One NBD request on its way: what to send, where a read's data goes, and whom to tell. Completed exactly
 * once, by whoever removes it from its connection's in-flight table (the reader on a reply, or the connection's
 * abort when the socket breaks).
 *
 * <p>Thread rule: built on the submitting thread, then owned by one connection's sender and reader; {@link #done}
 * runs on the reader thread or the thread that aborts the connection.
 */
final class NbdCommand {
    /** Told once when the command completed or was cut off by a broken connection. */
    @FunctionalInterface
    interface Done {
        /** {@code brokenConnection} is true when the socket died under the command (no reply came). */
        void done(NbdCommand command, IoResult result, boolean brokenConnection);
    }

    final DeviceOp op;
    /** NBD command type ({@code NbdProtocol.CMD_*}). */
    final int type;
    /** NBD command flags ({@code NbdProtocol.CMD_FLAG_*}). */
    final int flags;
    final long offsetBytes;
    final int lengthBytes;
    /** A read's destination or a write's source: a private view, position 0 of the request at its position. */
    final ByteBuffer buffer;
    final Done done;
    /** The engine's callback; null for the client's own requests (replays, internal flushes). */
    final IoCallback callback;
    /** Loop time of submission, for latency counters. */
    final long submittedNs;
    /** Loop time it was last handed to a connection: what the request timeout counts from (a held flush waits). */
    volatile long sentNs;
    /** The replay log's last sequence when a flush was sent: what a successful flush makes durable. */
    long flushCoversSeq;
    long cookie;
    /** The first error chunk of a structured reply; the command fails with it once the reply is done. */
    String structuredError;
    IoStatus structuredErrorStatus;

    NbdCommand(DeviceOp op, int type, int flags, long offsetBytes, int lengthBytes, ByteBuffer buffer, Done done,
            IoCallback callback, long submittedNs) {
        this.op = op;
        this.type = type;
        this.flags = flags;
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.buffer = buffer == null ? null : buffer.duplicate();
        this.done = done;
        this.callback = callback;
        this.submittedNs = submittedNs;
    }

    /** True if the request carries a payload after its header (a write). */
    boolean hasPayload() {
        return type == NbdProtocol.CMD_WRITE;
    }

    /** Bytes of payload: its length for a write, 0 for everything else (WRITE_ZEROES sends none). */
    long payloadBytes() {
        return hasPayload() ? lengthBytes : 0;
    }

    /** The status an NBD error value maps to: ENOSPC is a full device, everything else an I/O error. */
    static IoStatus statusOf(int nbdError) {
        return nbdError == NbdProtocol.ENOSPC ? IoStatus.NO_SPACE : IoStatus.IO_ERROR;
    }

    /** "write offset=4096 length=8192" for messages. */
    String describe() {
        return op.name().toLowerCase(java.util.Locale.ROOT) + " offset=" + offsetBytes + " length=" + lengthBytes;
    }
}

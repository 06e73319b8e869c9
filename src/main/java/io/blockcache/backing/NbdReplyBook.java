package io.blockcache.backing;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.nbd.NbdProtocol;

/**
 * The bookkeeping of an {@link NbdDevice}'s replies: an acknowledged write without FUA goes into the
 * {@link ReplayLog} (written again after a reconnect), an acknowledged flush releases what it covers, and a flush the
 * server fails is sticky: from then on every flush is refused, since writes before it may be lost.
 *
 * <p>Threads: any (connection readers record replies; the sticky failure is read by whoever dispatches a flush).
 */
final class NbdReplyBook {
    private final NbdUri uri;
    private final ReplayLog log;
    private String serverFlushFailure; // guarded by this

    NbdReplyBook(NbdUri uri, ReplayLog log) {
        this.uri = uri;
        this.log = log;
    }

    /** True for the writes the replay log keeps once acknowledged: the engine's writes without FUA. */
    static boolean logged(NbdCommand command) {
        return command.op == DeviceOp.WRITE && command.callback != null
                && (command.flags & NbdProtocol.CMD_FLAG_FUA) == 0;
    }

    /**
     * Records a reply.
     *
     * @return true if an acknowledged flush released log entries (parked writes may have room now)
     */
    boolean record(NbdCommand command, IoResult result) {
        if (command.op == DeviceOp.WRITE && result.ok() && (command.flags & NbdProtocol.CMD_FLAG_FUA) == 0) {
            if (command.type == NbdProtocol.CMD_WRITE_ZEROES) {
                log.addZeroes(command.offsetBytes, command.lengthBytes);
            } else {
                log.add(command.offsetBytes, command.buffer);
            }
        } else if (command.op == DeviceOp.FLUSH && result.ok()) {
            log.releaseUpTo(command.flushCoversSeq);
            return true;
        } else if (command.op == DeviceOp.FLUSH) {
            synchronized (this) {
                if (serverFlushFailure == null) {
                    serverFlushFailure = result.message();
                }
            }
        }
        return false;
    }

    /** The refusal of every flush once the server failed one; null before. */
    synchronized IoResult flushRefusal() {
        return serverFlushFailure == null ? null : IoResult.error(IoStatus.IO_ERROR, uri + ": an earlier flush failed ("
                + serverFlushFailure + "); writes before it may be lost, so no flush can succeed until the cache is"
                + " restarted");
    }
}

package io.blockcache.backing;

import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;

/**
 * A request of the engine to an {@link S3Device}, split into pieces at chunk boundaries: it completes once every
 * piece has, with the first error if any, and is counted in the device's {@link DeviceCounters} then.
 *
 * <p>Thread rule: the owning loop's thread only.
 */
final class S3Request {
    /** One piece of a request inside one chunk: told its outcome once. */
    @FunctionalInterface
    interface Piece {
        void finish(IoResult result);
    }

    /** What to do with one piece: chunk {@code index}, bytes [offsetInChunk, offsetInChunk + lengthBytes). */
    @FunctionalInterface
    interface PieceAction {
        void run(long index, int offsetInChunk, int lengthBytes, Piece done);
    }

    private final EventLoop loop;
    private final DeviceCounters counters;
    private final DeviceOp op;
    private final long lengthBytes;
    private final long submittedNs;
    private final IoCallback callback;
    private int pieces = 1;
    private IoResult firstError;

    S3Request(EventLoop loop, DeviceCounters counters, DeviceOp op, long lengthBytes, IoCallback callback) {
        this.loop = loop;
        this.counters = counters;
        this.op = op;
        this.lengthBytes = lengthBytes;
        this.submittedNs = loop.nowNs();
        this.callback = callback;
    }

    /** Completes the whole request with {@code result}, whatever pieces there were. */
    void finish(IoResult result) {
        pieces = 1;
        pieceDone(result);
    }

    /** The request now waits for {@code count} pieces (at least 1). */
    void expectPieces(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a request has at least one piece: " + count);
        }
        pieces = count;
    }

    /** One piece is done; the last one completes the request. */
    void pieceDone(IoResult result) {
        if (!result.ok() && firstError == null) {
            firstError = result;
        }
        if (--pieces == 0) {
            IoResult outcome = firstError == null ? IoResult.OK : firstError;
            long nowNs = loop.nowNs();
            counters.onComplete(op, outcome.ok() ? lengthBytes : 0, nowNs - submittedNs, outcome, nowNs);
            callback.complete(outcome);
        }
    }

    /** Splits [offset, offset + length) at multiples of {@code chunkBytes} and runs {@code action} on each piece. */
    void forEachPiece(long offsetBytes, long chunkBytes, PieceAction action) {
        long end = offsetBytes + lengthBytes;
        expectPieces((int) ((end - 1) / chunkBytes - offsetBytes / chunkBytes + 1));
        for (long at = offsetBytes; at < end; ) {
            long index = at / chunkBytes;
            int offsetInChunk = (int) (at - index * chunkBytes);
            int pieceBytes = (int) Math.min(end - at, chunkBytes - offsetInChunk);
            action.run(index, offsetInChunk, pieceBytes, this::pieceDone);
            at += pieceBytes;
        }
    }
}

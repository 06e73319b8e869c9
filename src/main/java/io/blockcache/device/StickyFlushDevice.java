package io.blockcache.device;

import java.nio.ByteBuffer;

/**
 * Makes a device's flush errors sticky: once one flush has failed, every later flush fails too, naming the
 * first failure. Why: a device (like Linux after a writeback error) may report a failed flush to one caller
 * only and let the next flush succeed, although writes acknowledged before the failure never reached stable
 * media. Without this, writeback could swallow the error of its own flush, and a client's later FLUSH would
 * then succeed over writes that were lost ("flush errors are sticky per backing device"). Everything
 * completed before the failure is treated as possibly lost for good: dirty data stays dirty (writeback never
 * marks it clean, since its flushes fail), and no FLUSH or FUA write on the device succeeds until a restart.
 *
 * <p>Reads and writes pass through unchanged. Thread rule: the owning loop's thread.
 */
public final class StickyFlushDevice extends ForwardingDevice {
    private String firstFailure;

    /** Wraps {@code inner}. */
    public StickyFlushDevice(BlockDevice inner) {
        super(inner);
    }

    /** The first flush failure, or null if every flush so far succeeded. */
    public String firstFailure() {
        return firstFailure;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (fua && firstFailure != null) {
            // A FUA write is a write plus a flush; its "durable" promise would cover the writes lost before.
            inner().write(offsetBytes, src, false, result -> callback.complete(result.ok() ? refusal() : result));
            return;
        }
        inner().write(offsetBytes, src, fua, !fua ? callback
                : result -> callback.complete(result.ok() && firstFailure != null ? refusal() : result));
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        if (fua && firstFailure != null) {
            inner().writeZeroes(offsetBytes, lengthBytes, false,
                    result -> callback.complete(result.ok() ? refusal() : result));
            return;
        }
        inner().writeZeroes(offsetBytes, lengthBytes, fua, !fua ? callback
                : result -> callback.complete(result.ok() && firstFailure != null ? refusal() : result));
    }

    @Override
    public void flush(IoCallback callback) {
        if (firstFailure != null) {
            IoResult refused = refusal();
            inner().flush(result -> callback.complete(refused));
            return;
        }
        inner().flush(result -> {
            if (!result.ok() && firstFailure == null) {
                firstFailure = result.message();
                callback.complete(result);
                return;
            }
            // A flush in flight when another one failed may report success over writes the failure lost
            // (the device tells one caller only): once a failure is known, no flush completes OK.
            callback.complete(firstFailure == null ? result : refusal());
        });
    }

    private IoResult refusal() {
        return IoResult.error(IoStatus.IO_ERROR, "an earlier flush of this device failed (" + firstFailure
                + "); writes before it may be lost, so no flush can succeed until the cache is restarted");
    }
}

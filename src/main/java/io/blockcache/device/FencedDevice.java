package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * Refuses every write, write-zeroes, trim and flush while a fence is closed: the backing store of a replicated volume
 * (docs/SCALE.md "Replication") may be written only by the member that holds the group's lease; a member that lost it
 * (cut off, or frozen and resumed) must not put older data over what the new server wrote. The fence is asked at each
 * submission, so a request already sent is not recalled (the new server's writeback waits a fence delay for those).
 *
 * <p>Reads pass through. Refusals complete through {@link EventLoop#execute}, never inside the submitting call.
 * Thread rule: the owning loop's thread.
 */
public final class FencedDevice extends ForwardingDevice {
    private final EventLoop loop;
    private final Supplier<String> fence;

    /**
     * Wraps {@code inner}; {@code fence} answers null while writes may pass, else why not (e.g. "this node lost the
     * lead of its replication group").
     */
    public FencedDevice(BlockDevice inner, EventLoop loop, Supplier<String> fence) {
        super(inner);
        this.loop = loop;
        this.fence = fence;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (!refused(callback)) {
            inner().write(offsetBytes, src, fua, callback);
        }
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        if (!refused(callback)) {
            inner().writeZeroes(offsetBytes, lengthBytes, fua, callback);
        }
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        if (!refused(callback)) {
            inner().discard(offsetBytes, lengthBytes, callback);
        }
    }

    @Override
    public void flush(IoCallback callback) {
        if (!refused(callback)) {
            inner().flush(callback);
        }
    }

    private boolean refused(IoCallback callback) {
        String why = fence.get();
        if (why == null) {
            return false;
        }
        IoResult refusal = IoResult.error(IoStatus.IO_ERROR, "fenced: " + why);
        loop.execute(() -> callback.complete(refusal));
        return true;
    }
}

package io.blockcache.sim;

import io.blockcache.device.DeviceCounters;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;

/**
 * A simulated device with one deliberate bug, to prove the harness catches it: a test that cannot fail is a
 * defect, so the harness must fail on these.
 */
final class BrokenDevice implements SimDevice {
    /** The bug to plant. */
    enum Bug {
        /** Acknowledges a flush at once without flushing: flushed data can vanish in a crash. */
        FLUSH_LIES,
        /** Acknowledges every eighth write without storing it: a later read sees stale data. */
        DROPS_WRITES
    }

    private final SimDevice inner;
    private final EventLoop loop;
    private final Bug bug;
    private long writes;

    BrokenDevice(SimDevice inner, EventLoop loop, Bug bug) {
        this.inner = inner;
        this.loop = loop;
        this.bug = bug;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (bug == Bug.DROPS_WRITES && ++writes % 8 == 0) {
            loop.execute(() -> callback.complete(IoResult.OK));
            return;
        }
        inner.write(offsetBytes, src, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        if (bug == Bug.FLUSH_LIES) {
            loop.execute(() -> callback.complete(IoResult.OK));
            return;
        }
        inner.flush(callback);
    }

    @Override
    public long sizeBytes() {
        return inner.sizeBytes();
    }

    @Override
    public int logicalBlockBytes() {
        return inner.logicalBlockBytes();
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        inner.read(offsetBytes, dst, callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        inner.discard(offsetBytes, lengthBytes, callback);
    }

    @Override
    public DeviceCounters counters() {
        return inner.counters();
    }

    @Override
    public void close() {
        inner.close();
    }

    @Override
    public CrashOutcome crash(Prng fate) {
        return inner.crash(fate);
    }

    @Override
    public void powerOn(EventLoop newLoop) {
        inner.powerOn(newLoop);
    }
}

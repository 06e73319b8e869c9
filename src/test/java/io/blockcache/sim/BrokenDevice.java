package io.blockcache.sim;

import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * A simulated device with one deliberate bug, to prove the harness catches it: a test that cannot fail is a
 * defect, so the harness must fail on these.
 */
final class BrokenDevice extends ForwardingDevice implements SimDevice {
    /** The bug to plant. */
    enum Bug {
        /** Acknowledges a flush at once without flushing: flushed data can vanish in a crash. */
        FLUSH_LIES,
        /** Acknowledges every eighth write without storing it: a later read sees stale data. */
        DROPS_WRITES
    }

    /** The same device as {@link #inner()}, typed for the power-cycle methods a plain device lacks. */
    private final SimDevice simInner;
    private final EventLoop loop;
    private final Bug bug;
    private long writes;

    BrokenDevice(SimDevice inner, EventLoop loop, Bug bug) {
        super(inner);
        this.simInner = inner;
        this.loop = loop;
        this.bug = bug;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (bug == Bug.DROPS_WRITES && ++writes % 8 == 0) {
            loop.execute(() -> callback.complete(IoResult.OK));
            return;
        }
        inner().write(offsetBytes, src, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        if (bug == Bug.FLUSH_LIES) {
            loop.execute(() -> callback.complete(IoResult.OK));
            return;
        }
        inner().flush(callback);
    }

    @Override
    public void setFlushFailures(Prng prng, double probability) {
        simInner.setFlushFailures(prng, probability);
    }

    @Override
    public long flushesFailed() {
        return simInner.flushesFailed();
    }

    @Override
    public CrashOutcome crash(Prng fate) {
        return simInner.crash(fate);
    }

    @Override
    public CrashOutcome crash(BitSet survivors) {
        return simInner.crash(survivors);
    }

    @Override
    public int pendingWriteCount() {
        return simInner.pendingWriteCount();
    }

    @Override
    public void powerOn(EventLoop newLoop) {
        simInner.powerOn(newLoop);
    }

    @Override
    public void peek(long offsetBytes, java.nio.ByteBuffer dst) {
        simInner.peek(offsetBytes, dst);
    }
}

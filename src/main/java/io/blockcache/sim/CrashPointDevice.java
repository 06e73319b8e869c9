package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;

/**
 * Passes every request through while its {@link CrashPointClock} counts the submission and the completion as
 * boundaries; once the clock has halted, a submission is dropped before it reaches the device and a completion
 * before it reaches its caller (the power is out: neither will ever happen). Put one in front of every device of
 * the run, sharing one clock. Thread rule: the simulation driver's thread.
 */
public final class CrashPointDevice extends ForwardingDevice {
    private final String name;
    private final CrashPointClock clock;

    /** Wraps {@code inner}, naming it {@code name} in boundary descriptions. */
    public CrashPointDevice(BlockDevice inner, String name, CrashPointClock clock) {
        super(inner);
        this.name = name;
        this.clock = clock;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        int lengthBytes = dst.remaining();
        if (clock.pass(name, "read", offsetBytes, lengthBytes)) {
            inner().read(offsetBytes, dst, gated("read done", offsetBytes, lengthBytes, callback));
        }
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        int lengthBytes = src.remaining();
        String what = fua ? "write+FUA" : "write";
        if (clock.pass(name, what, offsetBytes, lengthBytes)) {
            inner().write(offsetBytes, src, fua, gated(what + " done", offsetBytes, lengthBytes, callback));
        }
    }

    @Override
    public void flush(IoCallback callback) {
        if (clock.pass(name, "flush", 0, 0)) {
            inner().flush(gated("flush done", 0, 0, callback));
        }
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        if (clock.pass(name, "discard", offsetBytes, lengthBytes)) {
            inner().discard(offsetBytes, lengthBytes, gated("discard done", offsetBytes, lengthBytes, callback));
        }
    }

    private IoCallback gated(String what, long offsetBytes, long lengthBytes, IoCallback callback) {
        return result -> {
            if (clock.pass(name, what, offsetBytes, lengthBytes)) {
                callback.complete(result);
            }
        };
    }
}

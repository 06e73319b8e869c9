package io.blockcache.crash;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;

/**
 * A planted bug for proving the crash-point enumeration can fail: a device that acknowledges every flush at once
 * without flushing, so data the engine believes durable can vanish in a crash.
 */
final class LyingFlushDevice extends ForwardingDevice {
    private final EventLoop loop;

    LyingFlushDevice(BlockDevice inner, EventLoop loop) {
        super(inner);
        this.loop = loop;
    }

    @Override
    public void flush(IoCallback callback) {
        loop.execute(() -> callback.complete(IoResult.OK));
    }
}

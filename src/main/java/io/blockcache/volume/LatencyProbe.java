package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;

/**
 * The cache device as the volume uses it: passes every request through and feeds the latency of each read and
 * write to a {@link CongestionMonitor}. Why a decorator rather than the device's {@link DeviceCounters}: those
 * keep a histogram that is costly to read per request; this costs two loop-clock reads per request.
 *
 * <p>What it measures: the volume's front-end cache reads and writes (hits, dirty writes, fills): the latency the
 * front end suffers. Writeback's reads bypass it ({@link CacheExtentReader#read}): large and queued deep by
 * writeback itself, they would report writeback's own queue as congestion.
 *
 * <p>Thread rule: requests on the loop thread; completions arrive there (BlockDevice contract).
 */
final class LatencyProbe extends ForwardingDevice {
    private final EventLoop loop;
    private final CongestionMonitor monitor;

    LatencyProbe(BlockDevice inner, EventLoop loop, CongestionMonitor monitor) {
        super(inner);
        this.loop = loop;
        this.monitor = monitor;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        long submittedNs = loop.nowNs();
        inner().read(offsetBytes, dst, result -> {
            long nowNs = loop.nowNs();
            monitor.readCompleted(nowNs - submittedNs, nowNs);
            callback.complete(result);
        });
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        long submittedNs = loop.nowNs();
        inner().write(offsetBytes, src, fua, result -> {
            long nowNs = loop.nowNs();
            monitor.writeCompleted(nowNs - submittedNs, nowNs);
            callback.complete(result);
        });
    }
}

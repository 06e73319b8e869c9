package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The cache device as the volume uses it: passes every request through and feeds the latency of each read and
 * write to a {@link CongestionMonitor}. Why a decorator rather than the device's {@link DeviceCounters}: those
 * keep a histogram that is costly to read per request; this costs two loop-clock reads per request.
 *
 * <p>What it measures: the volume's front-end cache reads and writes (hits, dirty writes, fills): the latency the
 * front end suffers. Writeback's reads bypass it ({@link CacheExtentReader#read}): large and queued deep by
 * writeback itself, they would report writeback's own queue as congestion.
 *
 * <p>Thread rule: requests on the loop thread; completions arrive there (BlockDevice contract), so the pool of
 * timers needs no lock.
 */
final class LatencyProbe extends ForwardingDevice {
    /** Timers kept for reuse: more than the front end ever has in flight on the cache device at once. */
    private static final int FREE_TIMERS_MAX = 1024;

    private final EventLoop loop;
    private final CongestionMonitor monitor;
    private final ArrayDeque<Timer> freeTimers = new ArrayDeque<>();

    LatencyProbe(BlockDevice inner, EventLoop loop, CongestionMonitor monitor) {
        super(inner);
        this.loop = loop;
        this.monitor = monitor;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        inner().read(offsetBytes, dst, timer(true, callback));
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        inner().write(offsetBytes, src, fua, timer(false, callback));
    }

    private Timer timer(boolean read, IoCallback callback) {
        Timer timer = freeTimers.pollFirst();
        if (timer == null) {
            timer = new Timer();
        }
        timer.read = read;
        timer.callback = callback;
        timer.submittedNs = loop.nowNs();
        return timer;
    }

    /**
     * One request's latency measurement, reused once the request completed (nothing allocated per
     * request on the loop thread).
     */
    private final class Timer implements IoCallback {
        private boolean read;
        private IoCallback callback;
        private long submittedNs;

        @Override
        public void complete(IoResult result) {
            IoCallback caller = callback;
            if (caller == null) {
                throw new IllegalStateException("cache device completed a request twice");
            }
            callback = null;
            long nowNs = loop.nowNs();
            if (read) {
                monitor.readCompleted(nowNs - submittedNs, nowNs);
            } else {
                monitor.writeCompleted(nowNs - submittedNs, nowNs);
            }
            if (freeTimers.size() < FREE_TIMERS_MAX) {
                freeTimers.addFirst(this); // before the caller runs: what it submits next can take it
            }
            caller.complete(result);
        }
    }
}

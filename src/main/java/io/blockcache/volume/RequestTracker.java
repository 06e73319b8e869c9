package io.blockcache.volume;

import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.util.ArrayDeque;

/**
 * Counts a volume's front-end requests in its {@link DeviceCounters}: the submission when {@link #track} is called,
 * the completion and its latency when the callback it returns is called. That callback is an object reused once
 * its request completed (nothing allocated per steady-state request on the loop thread), so it must be
 * called exactly once; a second call fails loudly instead of counting a stranger's request.
 *
 * <p>Thread rule: the loop thread (requests and their completions).
 */
final class RequestTracker {
    /** Callbacks kept for reuse: more than the front end has in flight at once (NBD: 32 per connection). */
    static final int FREE_MAX = 1024;

    private final EventLoop loop;
    private final DeviceCounters counters;
    private final ArrayDeque<Tracked> free = new ArrayDeque<>();

    RequestTracker(EventLoop loop, DeviceCounters counters) {
        this.loop = loop;
        this.counters = counters;
    }

    /** Counts a request of {@code op} over {@code bytes} as submitted now; the returned callback completes it. */
    IoCallback track(DeviceOp op, long bytes, IoCallback callback) {
        Tracked tracked = free.pollFirst();
        if (tracked == null) {
            tracked = new Tracked();
        }
        tracked.op = op;
        tracked.bytes = bytes;
        tracked.callback = callback;
        tracked.submittedNs = loop.nowNs();
        counters.onSubmit(op, bytes, tracked.submittedNs);
        return tracked;
    }

    private final class Tracked implements IoCallback {
        private DeviceOp op;
        private long bytes;
        private IoCallback callback;
        private long submittedNs;

        @Override
        public void complete(IoResult result) {
            IoCallback caller = callback;
            if (caller == null) {
                throw new IllegalStateException("volume request (" + op + ") completed twice");
            }
            callback = null;
            long nowNs = loop.nowNs();
            counters.onComplete(op, bytes, nowNs - submittedNs, result, nowNs);
            if (free.size() < FREE_MAX) {
                free.addFirst(this); // before the caller runs: what it submits next can take it
            }
            caller.complete(result);
        }
    }
}

package io.blockcache.sim;

import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.Checks;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * What every simulated device shares: request validation (errors as values), counters, contents and
 * their durability, power state, and completion delivery guarded by a power epoch so that events of a
 * crashed or closed incarnation do nothing. Subclasses model only timing and their queues.
 *
 * <p>Thread rule: the simulation driver's thread.
 */
abstract class AbstractSimDevice implements SimDevice {
    /** How long a failed flush takes: a short time, as a device that gives up early. */
    private static final long FAILED_FLUSH_NS = 100_000;
    protected final DurabilityTracker media = new DurabilityTracker();
    protected EventLoop loop;
    private final long sizeBytes;
    private final int logicalBlockBytes;
    private DeviceCounters counters = new DeviceCounters();
    // Insertion-ordered so close() fails requests in a deterministic order.
    private final Set<SimRequest> outstanding = new LinkedHashSet<>();
    private long epoch;
    private Prng flushFaults;
    private double flushFailProbability;
    private long flushesFailed;
    private boolean poweredOff;
    private boolean closed;

    AbstractSimDevice(EventLoop loop, long sizeBytes, int logicalBlockBytes) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.sizeBytes = sizeBytes;
        this.logicalBlockBytes = logicalBlockBytes;
    }

    /** Starts timing a read whose range is valid. */
    protected abstract void startRead(SimRequest request);

    /** Starts timing a write whose range is valid; {@code request.write} is already recorded. */
    protected abstract void startWrite(SimRequest request);

    /** Starts a flush. */
    protected abstract void startFlush(SimRequest request);

    /** Forgets every queue, cache slot and timing state: power is gone (or comes back). */
    protected abstract void resetState();

    @Override
    public final long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public final int logicalBlockBytes() {
        return logicalBlockBytes;
    }

    @Override
    public final DeviceCounters counters() {
        return counters;
    }

    @Override
    public final void peek(long offsetBytes, ByteBuffer dst) {
        media.read(offsetBytes, dst.duplicate());
    }

    @Override
    public final void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        SimRequest request = accept(DeviceOp.READ, offsetBytes, dst.remaining(), dst, false, callback);
        if (request != null) {
            startRead(request);
        }
    }

    @Override
    public final void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        SimRequest request = accept(DeviceOp.WRITE, offsetBytes, src.remaining(), src, fua, callback);
        if (request != null) {
            request.write = media.begin(offsetBytes, src);
            startWrite(request);
        }
    }

    @Override
    public final void flush(IoCallback callback) {
        SimRequest request = accept(DeviceOp.FLUSH, 0, 0, null, false, callback);
        if (request == null) {
            return;
        }
        if (flushFaults != null && flushFaults.chance(flushFailProbability)) {
            // Linux semantics (fsync after a writeback error): the flush fails, some of the volatile writes it
            // covered never reach the media, and only this caller hears of it; the next flush succeeds.
            // The loss and its report happen together, so a flush that completes OK does so either before the
            // loss (its writes were on media by then) or after the report (a caller can know).
            flushesFailed++;
            long covers = media.lastCompletionOrder();
            Prng fate = flushFaults; // the plan may be switched off before the failure is delivered
            after(FAILED_FLUSH_NS, () -> {
                int lost = media.loseSomeVolatile(covers, fate);
                deliver(request, IoResult.error(IoStatus.IO_ERROR, "injected fault: flush failed, " + lost
                        + " volatile write(s) lost"));
            });
            return;
        }
        startFlush(request);
    }

    /**
     * Makes each flush fail with {@code probability} (drawn from {@code prng}); 0 switches it off. See
     * {@link #flush}: a failed flush loses some volatile writes and reports it once.
     */
    public final void setFlushFailures(Prng prng, double probability) {
        this.flushFaults = probability > 0 ? prng : null;
        this.flushFailProbability = probability;
    }

    /** Flushes failed on purpose so far. */
    public final long flushesFailed() {
        return flushesFailed;
    }

    /** Discard is accepted and ignored: the contract lets the range keep its old contents. */
    @Override
    public final void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        SimRequest request = accept(DeviceOp.DISCARD, offsetBytes, lengthBytes, null, false, callback);
        if (request != null) {
            after(0, () -> deliver(request, IoResult.OK));
        }
    }

    @Override
    public final CrashOutcome crash(Prng fate) {
        cutPower();
        return media.crash(fate);
    }

    @Override
    public final CrashOutcome crash(BitSet survivors) {
        cutPower();
        return media.crash(survivors);
    }

    @Override
    public final int pendingWriteCount() {
        return media.notDurableCount();
    }

    @Override
    public final void powerOn(EventLoop newLoop) {
        Checks.check(poweredOff, "powerOn without a crash");
        loop = Objects.requireNonNull(newLoop, "loop");
        counters = new DeviceCounters();
        poweredOff = false;
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        epoch++;
        resetState();
        for (SimRequest request : outstanding.toArray(new SimRequest[0])) {
            after(0, () -> deliver(request, IoResult.error(IoStatus.CLOSED, "device closed while in flight")));
        }
    }

    /** Drops every request in flight without a callback and every queue; the device is off until powerOn. */
    private void cutPower() {
        epoch++;
        outstanding.clear();
        resetState();
        poweredOff = true;
    }

    /** Runs {@code action} after {@code delayNs} of loop time unless the power epoch has changed. */
    protected final void after(long delayNs, Runnable action) {
        long scheduledEpoch = epoch;
        loop.schedule(delayNs, () -> {
            if (epoch == scheduledEpoch) {
                action.run();
            }
        });
    }

    /** Completes {@code request}: counters, then the callback. Call only from a loop event. */
    protected final void deliver(SimRequest request, IoResult result) {
        if (!outstanding.remove(request)) {
            return; // already completed (e.g. closed)
        }
        long nowNs = loop.nowNs();
        counters.onComplete(request.op, request.lengthBytes, nowNs - request.submitNs, result, nowNs);
        request.callback.complete(result);
    }

    private SimRequest accept(DeviceOp op, long offsetBytes, long lengthBytes, ByteBuffer buffer, boolean fua,
            IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        long nowNs = loop.nowNs();
        SimRequest request = new SimRequest(op, offsetBytes, lengthBytes, buffer, fua, callback, nowNs);
        counters.onSubmit(op, lengthBytes, nowNs);
        outstanding.add(request);
        IoResult refusal = refusal(op, offsetBytes, lengthBytes);
        if (refusal != null) {
            after(0, () -> deliver(request, refusal));
            return null;
        }
        return request;
    }

    private IoResult refusal(DeviceOp op, long offsetBytes, long lengthBytes) {
        if (closed || poweredOff) {
            return IoResult.error(IoStatus.CLOSED, "device is " + (closed ? "closed" : "powered off"));
        }
        if (op == DeviceOp.FLUSH) {
            return null;
        }
        if (offsetBytes < 0 || lengthBytes < 0 || offsetBytes > sizeBytes - lengthBytes) {
            return IoResult.error(IoStatus.OUT_OF_RANGE, op + " [" + offsetBytes + ", +" + lengthBytes
                    + ") outside a device of " + sizeBytes + " bytes");
        }
        if (offsetBytes % logicalBlockBytes != 0 || lengthBytes % logicalBlockBytes != 0) {
            return IoResult.error(IoStatus.MISALIGNED, op + " [" + offsetBytes + ", +" + lengthBytes
                    + ") not aligned to " + logicalBlockBytes + " bytes");
        }
        return null;
    }

}

package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A decorator that injects the faults of a {@link FaultPlan} into any {@link BlockDevice}: a failing request
 * never reaches the inner device and completes with {@link IoStatus#IO_ERROR} and a message starting
 * {@code "injected fault: "}; a spiked request runs normally and its completion is delivered late. Its
 * {@link SpaceBudget} plays the file system under a sparse file: once a ceiling is set, a write that needs blocks
 * beyond it completes with {@link IoStatus#NO_SPACE} (ENOSPC) until the ceiling is lifted.
 *
 * <p>Every request draws the same two numbers from the seeded {@code Prng} (fail, spike), whether or not
 * they matter, so adding a count or region fault does not shift the random faults of later requests.
 * Counters are this device's own (they include injected failures). Thread rule: the owning loop's thread.
 */
public final class FaultyDevice extends ForwardingDevice {
    private final EventLoop loop;
    private final Prng prng;
    private DeviceCounters counters = new DeviceCounters();
    private FaultPlan plan;
    private long requestNumber;
    private long injected;
    private final SpaceBudget space = new SpaceBudget();

    /** Wraps {@code inner}, which must complete on {@code loop}. */
    public FaultyDevice(BlockDevice inner, EventLoop loop, FaultPlan plan, Prng prng) {
        super(inner);
        this.loop = Objects.requireNonNull(loop, "loop");
        this.plan = Objects.requireNonNull(plan, "plan");
        this.prng = Objects.requireNonNull(prng, "prng");
    }

    /** Replaces the plan (e.g. to arm a fault mid-scenario); request numbering continues. */
    public void setPlan(FaultPlan newPlan) {
        this.plan = Objects.requireNonNull(newPlan, "plan");
    }

    /** Fails the next {@code count} requests. */
    public void failNext(long count) {
        setPlan(plan.withFailedRequests(requestNumber + 1, count));
    }

    /** Which blocks are allocated and the ceiling on them (ENOSPC injection). */
    public SpaceBudget space() {
        return space;
    }

    /** Requests failed on purpose so far. */
    public long injected() {
        return injected;
    }

    /** Requests seen so far (the number of the last one). */
    public long requestNumber() {
        return requestNumber;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        long bytes = dst.remaining();
        IoCallback done = admit(DeviceOp.READ, offsetBytes, bytes, callback);
        if (done != null) {
            inner().read(offsetBytes, dst, done);
        }
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        IoCallback done = admit(DeviceOp.WRITE, offsetBytes, src.remaining(), callback);
        if (done != null) {
            inner().write(offsetBytes, src, fua, done);
        }
    }

    @Override
    public void flush(IoCallback callback) {
        IoCallback done = admit(DeviceOp.FLUSH, 0, 0, callback);
        if (done != null) {
            inner().flush(done);
        }
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        IoCallback done = admit(DeviceOp.DISCARD, offsetBytes, lengthBytes, callback);
        if (done != null) {
            space.discard(offsetBytes, lengthBytes);
            inner().discard(offsetBytes, lengthBytes, done);
        }
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    /**
     * After a power cut (the loop forgot every pending event, the inner device dropped its requests): starts the
     * counters afresh, as the restarted process that reads them would. Kept, the requests in flight at the cut would
     * count as in flight for ever: writeback's queue governor, which measures the backing queue from these counters
     * and re-bases only when it sees the device empty, then held every pass for good (fuzz seed 404872: a drain that
     * never ended with 22 requests of a power cut "in flight").
     */
    public void powerOn() {
        counters = new DeviceCounters();
    }

    /** Decides this request's fate; returns the callback to pass inward, or null if it was failed here. */
    private IoCallback admit(DeviceOp op, long offsetBytes, long lengthBytes, IoCallback callback) {
        long number = ++requestNumber;
        long submitNs = loop.nowNs();
        counters.onSubmit(op, lengthBytes, submitNs);
        boolean randomFail = prng.chance(plan.failProbability());
        boolean spike = prng.chance(plan.spikeProbability());
        String reason = faultReason(op, offsetBytes, lengthBytes, number, randomFail);
        IoStatus status = IoStatus.IO_ERROR;
        if (reason == null && op == DeviceOp.WRITE && !space.admitWrite(offsetBytes, lengthBytes)) {
            reason = "no space left (" + space.allocatedBytes() + " of " + space.allocatedBytesMax()
                    + " bytes allocated)";
            status = IoStatus.NO_SPACE;
        }
        if (reason != null) {
            injected++;
            IoResult error = IoResult.error(status, "injected fault: " + reason + " (" + op + " #" + number
                    + " at " + offsetBytes + ", " + lengthBytes + " bytes)");
            loop.execute(() -> finish(op, lengthBytes, submitNs, error, callback));
            return null;
        }
        if (spike && plan.spikeDelayNs() > 0) {
            return result -> loop.schedule(plan.spikeDelayNs(), () -> finish(op, lengthBytes, submitNs, result,
                    callback));
        }
        return result -> finish(op, lengthBytes, submitNs, result, callback);
    }

    private String faultReason(DeviceOp op, long offsetBytes, long lengthBytes, long number, boolean randomFail) {
        long first = plan.failFirstRequestNumber();
        if (first > 0 && number >= first && number < first + plan.failRequestCount()) {
            return "request count";
        }
        for (FaultPlan.RegionFault region : plan.regions()) {
            if (region.matches(op, offsetBytes, lengthBytes)) {
                return "region [" + region.offsetBytes() + ", +" + region.lengthBytes() + ")";
            }
        }
        return randomFail ? "rate " + plan.failProbability() : null;
    }

    private void finish(DeviceOp op, long lengthBytes, long submitNs, IoResult result, IoCallback callback) {
        long nowNs = loop.nowNs();
        counters.onComplete(op, lengthBytes, nowNs - submitNs, result, nowNs);
        callback.complete(result);
    }
}

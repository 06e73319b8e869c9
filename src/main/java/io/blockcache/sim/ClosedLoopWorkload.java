package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;

/**
 * A seeded closed-loop workload (like fio with {@code iodepth}): keeps {@code queueDepth} requests of
 * {@code requestBytes} outstanding on a device until {@code requestCount} have completed, at random aligned
 * offsets or sequentially within a region, and measures the virtual time it took.
 *
 * <p>Thread rule: the thread that drives {@code loop}.
 */
public final class ClosedLoopWorkload {
    /**
     * What to run; offsets stay within {@code [regionOffsetBytes, regionOffsetBytes + regionBytes)}; writes carry FUA
     * if {@code fua} (an object store's writes then complete when stored, not when staged).
     */
    public record Spec(boolean write, boolean random, int queueDepth, int requestBytes, int requestCount,
            long regionOffsetBytes, long regionBytes, boolean fua) {
        /** Validates the spec. */
        public Spec {
            if (queueDepth < 1 || requestBytes <= 0 || requestBytes % 4096 != 0 || requestCount < 2
                    || regionBytes < requestBytes || regionOffsetBytes < 0 || regionOffsetBytes % 4096 != 0
                    || (fua && !write)) {
                throw new IllegalArgumentException("bad workload spec: " + this);
            }
        }

        /** A spec without FUA. */
        public Spec(boolean write, boolean random, int queueDepth, int requestBytes, int requestCount,
                long regionOffsetBytes, long regionBytes) {
            this(write, random, queueDepth, requestBytes, requestCount, regionOffsetBytes, regionBytes, false);
        }
    }

    /**
     * What one run measured, in steady state: the requests completed after the first completion, over the
     * virtual time from the first completion to the last (so the initial seek from wherever the head was
     * parked does not count, as in a fio run with a ramp).
     */
    public record Result(int requestCount, long bytes, long elapsedNs, int errors) {
        /** Requests per second of virtual time. */
        public double iops() {
            return requestCount * 1e9 / elapsedNs;
        }

        /** Decimal megabytes per second of virtual time. */
        public double mbPerSecond() {
            return bytes * 1e3 / elapsedNs;
        }
    }

    private final SimLoop loop;
    private final BlockDevice device;
    private final Spec spec;
    private final Prng prng;
    private final ByteBuffer payload;
    private long nextSequentialOffsetBytes;
    private int submitted;
    private int completed;
    private int errors;
    private long firstCompletionNs = -1;

    /** Prepares a run of {@code spec} on {@code device}, which must run on {@code loop}. */
    public ClosedLoopWorkload(SimLoop loop, BlockDevice device, Spec spec, Prng prng) {
        this.loop = loop;
        this.device = device;
        this.spec = spec;
        this.prng = prng;
        byte[] bytes = new byte[spec.requestBytes()];
        prng.nextBytes(bytes);
        this.payload = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        this.nextSequentialOffsetBytes = spec.regionOffsetBytes();
    }

    /** Runs the workload to completion on the loop and returns what it measured. */
    public Result run() {
        for (int i = 0; i < spec.queueDepth() && submitted < spec.requestCount(); i++) {
            submitNext();
        }
        loop.runUntil(() -> completed == spec.requestCount());
        if (completed != spec.requestCount()) {
            throw new IllegalStateException("workload stalled after " + completed + " of " + spec.requestCount());
        }
        int measured = completed - 1;
        return new Result(measured, (long) measured * spec.requestBytes(), loop.nowNs() - firstCompletionNs, errors);
    }

    private void submitNext() {
        submitted++;
        long offsetBytes = nextOffsetBytes();
        if (spec.write()) {
            device.write(offsetBytes, payload.duplicate(), spec.fua(), this::onComplete);
        } else {
            device.read(offsetBytes, ByteBuffer.allocate(spec.requestBytes()), this::onComplete);
        }
    }

    private long nextOffsetBytes() {
        long slots = spec.regionBytes() / spec.requestBytes();
        if (spec.random()) {
            return spec.regionOffsetBytes() + prng.nextLong(slots) * spec.requestBytes();
        }
        long offsetBytes = nextSequentialOffsetBytes;
        nextSequentialOffsetBytes += spec.requestBytes();
        if (nextSequentialOffsetBytes + spec.requestBytes() > spec.regionOffsetBytes() + spec.regionBytes()) {
            nextSequentialOffsetBytes = spec.regionOffsetBytes(); // wrap around within the region
        }
        return offsetBytes;
    }

    private void onComplete(IoResult result) {
        completed++;
        if (firstCompletionNs < 0) {
            firstCompletionNs = loop.nowNs();
        }
        if (!result.ok()) {
            errors++;
        }
        if (submitted < spec.requestCount()) {
            submitNext();
        }
    }
}

package io.blockcache.sim;

import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Keeps up to {@code depthMax} generated requests in flight against a {@link CrashTarget}, records each in the
 * {@link ReferenceModel} at submission and at acknowledgement, and checks every read when it completes.
 *
 * <p>On a target without newest-submission-wins a mutation that overlaps one in flight is held back until
 * that one completes (its outcome would be undefined). Any failed request, and any read the model does not
 * allow, throws a {@link ContractViolation} out of the loop step. Thread rule: the simulation driver's thread.
 */
public final class WorkloadDriver {
    private final CrashTarget target;
    private final ReferenceModel model;
    private final WorkloadGenerator generator;
    private final int depthMax;
    private final long seed;
    private final List<ModelOp> mutationsInFlight = new ArrayList<>();
    // Every request in flight by step, in submission order: what a stalled run names.
    private final java.util.LinkedHashMap<Long, ModelOp> inFlightBySteps = new java.util.LinkedHashMap<>();
    private String phase = "";
    private Consumer<String> trace = line -> { };
    private ModelOp held;
    private int remaining;
    private int inFlight;
    private long steps;
    private long completed;
    private long failed;
    private boolean failuresAllowed;
    private long epoch;

    /** A driver for run {@code seed} (named in failure messages) keeping at most {@code depthMax} in flight. */
    public WorkloadDriver(CrashTarget target, ReferenceModel model, WorkloadGenerator generator, int depthMax,
                          long seed) {
        this.target = target;
        this.model = model;
        this.generator = generator;
        this.depthMax = depthMax;
        this.seed = seed;
    }

    /** Names the current phase in failure messages (e.g. "segment 2"). */
    public void phase(String name) {
        this.phase = name;
    }

    /** Sends a line per submission and completion to {@code sink} (a failing seed prints the last of them). */
    public void trace(Consumer<String> sink) {
        this.trace = sink;
    }

    /** Generates and submits {@code ops} more requests as room allows. */
    public void start(int ops) {
        remaining += ops;
        pump();
    }

    /** True when every request asked for has been submitted and has completed. */
    public boolean idle() {
        return remaining == 0 && held == null && inFlight == 0;
    }

    /**
     * While faults are injected a request may fail: a failed mutation stays unacknowledged (its value is
     * allowed, never required), a failed flush makes nothing durable, a failed read checks nothing.
     */
    public void allowFailures(boolean allowed) {
        this.failuresAllowed = allowed;
    }

    /** Requests that failed (while failures were allowed). */
    public long failed() {
        return failed;
    }

    /** The requests in flight now, oldest first, for a stall report. */
    public String describeInFlight() {
        StringBuilder text = new StringBuilder();
        inFlightBySteps.forEach((step, op) -> text.append(text.length() > 0 ? ", " : "").append('#').append(step)
                .append(' ').append(op));
        return text.length() == 0 ? "none" : text.toString();
    }

    /** The step of the last request submitted (0 before the first). */
    public long lastStep() {
        return steps;
    }

    /** True if a request submitted at step {@code step} or before is still in flight (not abandoned in a crash). */
    public boolean inFlightUpTo(long step) {
        return !inFlightBySteps.isEmpty() && inFlightBySteps.keySet().iterator().next() <= step;
    }

    /** Requests completed so far. */
    public long completed() {
        return completed;
    }

    /** Forgets the requests in flight and those not yet submitted: the power went out. */
    public void abandon() {
        epoch++;
        mutationsInFlight.clear();
        inFlightBySteps.clear();
        held = null;
        remaining = 0;
        inFlight = 0;
    }

    /** Builds a replayable failure message. */
    public ContractViolation violation(String where, String detail) {
        return new ContractViolation("seed " + seed + ", " + phase + ", " + where + ": " + detail
                + " (replay with this seed)");
    }

    private void pump() {
        while (inFlight < depthMax && (held != null || remaining > 0)) {
            ModelOp op = held;
            if (op == null) {
                op = generator.next();
                remaining--;
            }
            if (!target.newestSubmissionWins() && op.mutates() && overlapsMutationInFlight(op)) {
                held = op;
                return;
            }
            held = null;
            submit(op);
        }
    }

    private boolean overlapsMutationInFlight(ModelOp op) {
        for (ModelOp other : mutationsInFlight) {
            if (op.overlaps(other)) {
                return true;
            }
        }
        return false;
    }

    private void submit(ModelOp op) {
        long step = ++steps;
        long submittedEpoch = epoch;
        trace.accept("submit #" + step + " " + op);
        inFlightBySteps.put(step, op);
        inFlight++;
        if (op.mutates()) {
            mutationsInFlight.add(op);
        }
        switch (op.kind()) {
            case FLUSH -> {
                model.boundary();
                long mark = model.flushSubmitted();
                target.device().flush(r -> done(submittedEpoch, step, op, r, () -> model.flushAcknowledged(mark)));
            }
            case READ -> {
                long[] lowest = model.readSubmitted(op.startSector(), op.lengthSectors());
                ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(op.lengthBytes()));
                target.device().read(op.offsetBytes(), data.duplicate(), r -> done(submittedEpoch, step, op, r,
                        () -> checkRead(step, op, lowest, data)));
            }
            case WRITE -> {
                if (op.fua()) {
                    model.boundary();
                }
                ReferenceModel.Entry entry = model.submit(op);
                ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(op.lengthBytes()));
                for (int i = 0; i < op.lengthSectors(); i++) {
                    SectorPattern.fill(entry.writeId(), op.startSector() + i, data);
                }
                data.flip();
                target.device().write(op.offsetBytes(), data, op.fua(),
                        r -> done(submittedEpoch, step, op, r, () -> model.acknowledge(entry, op)));
            }
            case WRITE_ZEROES -> {
                ReferenceModel.Entry entry = model.submit(op);
                target.writeZeroes(op.offsetBytes(), op.lengthBytes(), op.fua(),
                        r -> done(submittedEpoch, step, op, r, () -> model.acknowledge(entry, op)));
            }
            case TRIM -> {
                ReferenceModel.Entry entry = model.submit(op);
                target.device().discard(op.offsetBytes(), op.lengthBytes(),
                        r -> done(submittedEpoch, step, op, r, () -> model.acknowledge(entry, op)));
            }
        }
    }

    private void checkRead(long step, ModelOp op, long[] lowest, ByteBuffer data) {
        ReferenceModel.Mismatch mismatch = model.checkRead(op.startSector(), lowest, data);
        if (mismatch != null) {
            throw violation("step " + step + " " + op, "read returned a value the model does not allow: " + mismatch);
        }
    }

    private void done(long submittedEpoch, long step, ModelOp op, IoResult result, Runnable onSuccess) {
        if (submittedEpoch != epoch) {
            return; // from before a crash: its fate is the crash image's business
        }
        trace.accept("done #" + step + " " + op + (result.ok() ? "" : ": " + result));
        inFlightBySteps.remove(step);
        if (!result.ok() && !failuresAllowed) {
            throw violation("step " + step + " " + op, "request failed: " + result);
        }
        if (result.ok()) {
            onSuccess.run();
        } else {
            failed++;
        }
        inFlight--;
        if (op.mutates()) {
            mutationsInFlight.remove(op);
        }
        completed++;
        pump();
    }
}

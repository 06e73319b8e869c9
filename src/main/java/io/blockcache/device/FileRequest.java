package io.blockcache.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One request of a {@link FileDevice} on its way from the loop to an I/O thread and back.
 *
 * <p>Its state moves QUEUED → EXECUTING → DONE, or QUEUED → DONE when {@code close()} cancels it; each
 * move is a compare-and-set, so exactly one party completes it and its callback runs exactly once.
 * Thread rule: created on the loop thread, then owned by whoever won the last transition. The one request a
 * device performs inline on the loop thread is {@link #reuse reused} for every inline transfer (nothing
 * allocated per request on the loop thread): an inline transfer is over before the next can start.
 */
final class FileRequest {
    private static final int QUEUED = 0;
    private static final int EXECUTING = 1;
    private static final int DONE = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(FileRequest.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    DeviceOp op;
    long offsetBytes;
    /** The length asked for, for messages. */
    long lengthBytes;
    /** The bytes the counters see: {@code lengthBytes}, or 0 for a request rejected before any I/O. */
    long countedBytes;
    /** The caller's buffer; null for a flush. */
    ByteBuffer buffer;
    boolean fua;
    IoCallback callback;
    long submittedNs;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state = QUEUED;

    FileRequest(DeviceOp op, long offsetBytes, long lengthBytes, long countedBytes, ByteBuffer buffer,
            boolean fua, IoCallback callback, long submittedNs) {
        reuse(op, offsetBytes, lengthBytes, countedBytes, buffer, fua, callback, submittedNs);
    }

    /** Makes this a new QUEUED request; only for a request no other thread can still see. */
    void reuse(DeviceOp op, long offsetBytes, long lengthBytes, long countedBytes, ByteBuffer buffer,
            boolean fua, IoCallback callback, long submittedNs) {
        this.op = op;
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.countedBytes = countedBytes;
        this.buffer = buffer;
        this.fua = fua;
        this.callback = callback;
        this.submittedNs = submittedNs;
        this.state = QUEUED;
    }

    /** Drops the references to the caller's buffer and callback once the request is finished. */
    void forget() {
        this.buffer = null;
        this.callback = null;
    }

    /** Claims the request for execution; false if it was already cancelled. */
    boolean begin() {
        return STATE.compareAndSet(this, QUEUED, EXECUTING);
    }

    /** Cancels a request that has not started; false if an I/O thread already claimed it. */
    boolean cancel() {
        return STATE.compareAndSet(this, QUEUED, DONE);
    }

    /** Marks an executing request done; false if it was not executing (a broken invariant). */
    boolean end() {
        return STATE.compareAndSet(this, EXECUTING, DONE);
    }
}

package io.blockcache.device;

import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;

/**
 * A {@link FileDevice}'s inline writes held for the end of the loop turn: when a write joins the {@link WritePlug},
 * when the plug is written (by its own task after the turn's handlers, or first thing for a request that must see
 * it), and how the held writes complete.
 *
 * <p>Completion: the plug's own task runs the callbacks directly, so a joined write costs no extra loop turn; a plug
 * written inside a caller's submit completes through the {@link CompletionBatcher}, so the caller is never
 * re-entered. Either way every write is counted by its own length and latency.
 *
 * <p>Thread rule: the owning loop's thread; the counts any thread.
 */
final class HeldWrites {
    /** Writes the plug's bytes with one channel call on the loop thread: the device's inline path. */
    interface Writer {
        /**
         * @param writes how many held writes the bytes carry (for the inline policy's per-call mean)
         * @param firstSubmittedNs loop time the first of them was submitted
         */
        IoResult write(long offsetBytes, ByteBuffer data, int writes, long firstSubmittedNs);
    }

    /** Says what a write was, for an error message: "write offset=... length=... on PATH". */
    interface Describer {
        String describe(long offsetBytes, long lengthBytes);
    }

    private final EventLoop loop;
    private final Writer writer;
    private final DeviceCounters counters;
    private final CompletionBatcher completions;
    private final WritePlug plug = new WritePlug();
    /** The callbacks of a plug being delivered by its task, taken out first: a callback may start the next plug. */
    private final IoCallback[] delivering = new IoCallback[WritePlug.REQUESTS_MAX];
    private final Runnable task = this::turnEnded;
    private boolean taskQueued;
    /** Plugs of two or more writes written, and the writes in them; loop thread writes, any thread reads. */
    private volatile long plugsJoined;
    private volatile long writesJoined;

    HeldWrites(EventLoop loop, Writer writer, DeviceCounters counters, CompletionBatcher completions) {
        this.loop = loop;
        this.writer = writer;
        this.counters = counters;
        this.completions = completions;
    }

    /** True if a write of {@code lengthBytes} may be held (else it is written alone). */
    static boolean holds(long lengthBytes) {
        return lengthBytes <= WritePlug.BYTES_MAX;
    }

    /**
     * Holds an inline write, to be written with the adjacent ones of this loop turn when the turn's tasks run; a
     * write that does not join first writes the plug it cannot join.
     */
    void hold(long offsetBytes, ByteBuffer src, IoCallback callback, long submittedNs) {
        if (!plug.accepts(offsetBytes, src.remaining())) {
            write(false);
        }
        plug.add(offsetBytes, src, callback, submittedNs);
        if (!taskQueued) {
            try {
                loop.execute(task); // runs after the handlers of this turn, with the tasks they queued
                taskQueued = true;
            } catch (IllegalStateException loopStopped) {
                write(false); // no turn will end: write now; the batcher counts what it cannot deliver
            }
        }
    }

    /**
     * Writes the held writes first if the request about to be submitted must see them: a flush, a FUA write, or a
     * request sharing a byte with them.
     */
    void beforeRequest(DeviceOp op, long offsetBytes, long lengthBytes, boolean fua) {
        if (!plug.isEmpty() && (op == DeviceOp.FLUSH || fua || plug.overlaps(offsetBytes, lengthBytes))) {
            write(false);
        }
    }

    /** The turn that filled the plug is over: write it and run its callbacks. */
    private void turnEnded() {
        taskQueued = false;
        write(true);
    }

    /** Writes the plug with one call and completes each write: directly if {@code callNow}, else batched. */
    private void write(boolean callNow) {
        int count = plug.count();
        if (count == 0) {
            return;
        }
        IoResult result = writer.write(plug.offsetBytes(), plug.data(), count, plug.submittedNs(0));
        if (count > 1) {
            plugsJoined++;
            writesJoined += count;
        }
        long nowNs = loop.nowNs();
        for (int i = 0; i < count; i++) {
            counters.onComplete(DeviceOp.WRITE, plug.lengthBytes(i), nowNs - plug.submittedNs(i), result, nowNs);
            if (callNow) {
                delivering[i] = plug.callback(i);
            } else {
                completions.deliver(plug.callback(i), result);
            }
        }
        plug.clear();
        if (callNow) {
            for (int i = 0; i < count; i++) {
                IoCallback callback = delivering[i];
                delivering[i] = null;
                callback.complete(result);
            }
        }
    }

    /** Completes every held write with CLOSED without writing it: the device is closing. */
    void cutOff(Describer describer) {
        long nowNs = loop.nowNs();
        long offsetBytes = plug.offsetBytes();
        for (int i = 0; i < plug.count(); i++) {
            IoResult cut = IoResult.error(IoStatus.CLOSED, describer.describe(offsetBytes, plug.lengthBytes(i))
                    + ": device is closed");
            counters.onComplete(DeviceOp.WRITE, plug.lengthBytes(i), nowNs - plug.submittedNs(i), cut, nowNs);
            completions.deliver(plug.callback(i), cut);
            offsetBytes += plug.lengthBytes(i);
        }
        plug.clear();
    }

    /** Writes held right now. */
    int count() {
        return plug.count();
    }

    /** Plugs of two or more writes written so far; any thread. */
    long plugsJoined() {
        return plugsJoined;
    }

    /** The writes those plugs carried; any thread. */
    long writesJoined() {
        return writesJoined;
    }
}

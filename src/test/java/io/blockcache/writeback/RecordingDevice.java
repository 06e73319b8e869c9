package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Passes every request to a device and records reads and writes (kind, byte offset, length) in submission order.
 * It can also hold reads back (a slow read, so that reads complete out of submission order) until released.
 */
final class RecordingDevice extends ForwardingDevice {
    record Op(char kind, long offsetBytes, long lengthBytes) {
    }

    final List<Op> ops = new ArrayList<>();
    boolean recording;
    /**
     * Writes below this byte offset are not recorded: on a backing device, the damage map's writes between the
     * header and the volume's data (FORMAT.md §4.1) are the front end's and the sweeps', not writeback's.
     */
    long recordWritesFromBytes;
    /** How many of the next reads to hold back instead of passing them on. */
    int readsToHold;
    private final List<Runnable> heldReads = new ArrayList<>();

    RecordingDevice(BlockDevice inner) {
        super(inner);
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        if (recording) {
            ops.add(new Op('R', offsetBytes, dst.remaining()));
        }
        if (readsToHold > 0) {
            readsToHold--;
            heldReads.add(() -> inner().read(offsetBytes, dst, callback));
            return;
        }
        inner().read(offsetBytes, dst, callback);
    }

    /** Reads held back and not yet released. */
    int heldReads() {
        return heldReads.size();
    }

    /** Passes the held reads on, in the order they arrived. */
    void releaseHeldReads() {
        List<Runnable> held = new ArrayList<>(heldReads);
        heldReads.clear();
        held.forEach(Runnable::run);
    }

    /** Fail every write from now on (the device answers later, as it would). */
    boolean failWrites;

    /** Runs at the submission of every recorded write, before it is passed on (a test's observation point). */
    Runnable onRecordedWrite = () -> { };

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (recording && offsetBytes >= recordWritesFromBytes) {
            ops.add(new Op('W', offsetBytes, src.remaining()));
            onRecordedWrite.run();
        }
        if (failWrites) {
            inner().flush(ignored -> callback.complete(IoResult.error(IoStatus.IO_ERROR, "injected write error")));
            return;
        }
        inner().write(offsetBytes, src, fua, callback);
    }

    /** What {@link #checkPresence} answers: null, or a change under the device ("file PATH was deleted ..."). */
    volatile String presenceProblem;

    @Override
    public String checkPresence() {
        return presenceProblem;
    }

    @Override
    public void flush(IoCallback callback) {
        if (recording) {
            ops.add(new Op('F', 0, 0));
        }
        inner().flush(callback);
    }
}

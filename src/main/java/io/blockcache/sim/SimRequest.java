package io.blockcache.sim;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;

/** One request inside a simulated device, from submission to completion. */
final class SimRequest {
    final DeviceOp op;
    final long offsetBytes;
    final long lengthBytes;
    final ByteBuffer buffer;
    final boolean fua;
    final IoCallback callback;
    final long submitNs;
    /** For writes: the tracked copy of the data. */
    PendingWrite write;

    SimRequest(DeviceOp op, long offsetBytes, long lengthBytes, ByteBuffer buffer, boolean fua,
            IoCallback callback, long submitNs) {
        this.op = op;
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.buffer = buffer;
        this.fua = fua;
        this.callback = callback;
        this.submitNs = submitNs;
    }
}

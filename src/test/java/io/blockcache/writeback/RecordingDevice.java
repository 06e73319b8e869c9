package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Passes every request to a device and records reads and writes (kind, byte offset, length) in submission order. */
final class RecordingDevice extends ForwardingDevice {
    record Op(char kind, long offsetBytes, long lengthBytes) {
    }

    final List<Op> ops = new ArrayList<>();
    boolean recording;

    RecordingDevice(BlockDevice inner) {
        super(inner);
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        if (recording) {
            ops.add(new Op('R', offsetBytes, dst.remaining()));
        }
        inner().read(offsetBytes, dst, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (recording) {
            ops.add(new Op('W', offsetBytes, src.remaining()));
        }
        inner().write(offsetBytes, src, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        if (recording) {
            ops.add(new Op('F', 0, 0));
        }
        inner().flush(callback);
    }
}

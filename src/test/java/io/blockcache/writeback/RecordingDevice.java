package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Passes every request to a device and records reads and writes (kind, byte offset, length) in submission order. */
final class RecordingDevice implements BlockDevice {
    record Op(char kind, long offsetBytes, long lengthBytes) {
    }

    private final BlockDevice inner;
    final List<Op> ops = new ArrayList<>();
    boolean recording;

    RecordingDevice(BlockDevice inner) {
        this.inner = inner;
    }

    @Override
    public long sizeBytes() {
        return inner.sizeBytes();
    }

    @Override
    public int logicalBlockBytes() {
        return inner.logicalBlockBytes();
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        if (recording) {
            ops.add(new Op('R', offsetBytes, dst.remaining()));
        }
        inner.read(offsetBytes, dst, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (recording) {
            ops.add(new Op('W', offsetBytes, src.remaining()));
        }
        inner.write(offsetBytes, src, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        if (recording) {
            ops.add(new Op('F', 0, 0));
        }
        inner.flush(callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        inner.discard(offsetBytes, lengthBytes, callback);
    }

    @Override
    public DeviceCounters counters() {
        return inner.counters();
    }

    @Override
    public void close() {
        inner.close();
    }
}

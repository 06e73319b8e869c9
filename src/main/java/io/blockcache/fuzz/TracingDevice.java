package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.sim.SectorPattern;
import java.nio.ByteBuffer;

/**
 * A replay aid: passes every request through and writes to the trace each write, discard and read that touches
 * one watched byte range, and every flush, at submission and completion. {@code simulate fuzz --seed S --watch
 * VOLUME:SECTOR} puts one in front of that volume's backing device, so a failing sector's history on the disk
 * can be read next to the requests that caused it.
 */
final class TracingDevice extends ForwardingDevice {
    private final String name;
    private final long watchStartBytes;
    private final long watchEndBytes;
    private final FuzzTrace trace;
    private final long sectorZeroBytes;
    private long requests;

    TracingDevice(BlockDevice inner, String name, long sectorZeroBytes, long watchOffsetBytes, long watchLengthBytes,
                  FuzzTrace trace) {
        super(inner);
        this.sectorZeroBytes = sectorZeroBytes;
        this.name = name;
        this.watchStartBytes = watchOffsetBytes;
        this.watchEndBytes = watchOffsetBytes + watchLengthBytes;
        this.trace = trace;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        inner().read(offsetBytes, dst, watch("read", offsetBytes, dst.remaining(), false, dst, callback));
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        inner().write(offsetBytes, src, fua, watch("write", offsetBytes, src.remaining(), fua, src, callback));
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        inner().discard(offsetBytes, lengthBytes, watch("discard", offsetBytes, lengthBytes, false, null, callback));
    }

    @Override
    public void flush(IoCallback callback) {
        long number = ++requests;
        trace.add(name + " flush #" + number + " submitted");
        inner().flush(result -> {
            trace.add(name + " flush #" + number + " done: " + result);
            callback.complete(result);
        });
    }

    /** The pattern value of the watched sector in {@code data} (whose first byte is at {@code offsetBytes}). */
    private String valueAt(ByteBuffer data, long offsetBytes) {
        if (data == null) {
            return "";
        }
        int at = data.position() + (int) (watchStartBytes - offsetBytes);
        if (at < 0 || at + BlockDevice.SECTOR_BYTES > data.limit()) {
            return "";
        }
        long sector = (watchStartBytes - sectorZeroBytes) / BlockDevice.SECTOR_BYTES;
        return ", watched sector holds " + SectorPattern.describe(SectorPattern.decode(data.duplicate().position(at),
                sector));
    }

    private IoCallback watch(String what, long offsetBytes, long lengthBytes, boolean fua, ByteBuffer data,
                             IoCallback callback) {
        long number = ++requests;
        if (offsetBytes >= watchEndBytes || offsetBytes + lengthBytes <= watchStartBytes) {
            return callback;
        }
        String line = name + " " + what + (fua ? "+FUA" : "") + " #" + number + " [" + offsetBytes + ", +"
                + lengthBytes + ")";
        ByteBuffer view = data == null ? null : data.duplicate();
        trace.add(line + " submitted" + (what.equals("write") ? valueAt(view, offsetBytes) : ""));
        return result -> {
            trace.add(line + " done: " + result + (what.equals("read") ? valueAt(view, offsetBytes) : ""));
            callback.complete(result);
        };
    }
}

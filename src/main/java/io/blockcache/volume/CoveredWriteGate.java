package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;

/**
 * A volume's backing device as the engine writes it: every write, write-zeroes and discard of the volume's data
 * passes {@link CoveredWrites} first, so that none reaches the device before the journal records that remove the
 * clean copies it makes stale (docs/FORMAT.md §7 rule 10). Reads and flushes go straight through; so do writes
 * below the volume's data offset (header, damage map, backing log body: nothing the cache keeps copies of).
 *
 * <p>Thread rule: the cache's loop thread, as {@link BlockDevice}.
 */
public final class CoveredWriteGate extends ForwardingDevice {
    private final CoveredWrites order;
    private final long dataOffsetBytes;

    /**
     * @param dataOffsetBytes where the volume's data starts on {@code inner}; writes that end at or below it are not
     *     held
     */
    public CoveredWriteGate(BlockDevice inner, CoveredWrites order, long dataOffsetBytes) {
        super(inner);
        this.order = order;
        this.dataOffsetBytes = dataOffsetBytes;
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (offsetBytes + src.remaining() <= dataOffsetBytes || order.mayPass()) {
            inner().write(offsetBytes, src, fua, callback);
        } else {
            order.hold(() -> inner().write(offsetBytes, src, fua, callback), callback);
        }
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        if (order.mayPass()) {
            inner().writeZeroes(offsetBytes, lengthBytes, fua, callback);
        } else {
            order.hold(() -> inner().writeZeroes(offsetBytes, lengthBytes, fua, callback), callback);
        }
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        if (order.mayPass()) {
            inner().discard(offsetBytes, lengthBytes, callback);
        } else {
            order.hold(() -> inner().discard(offsetBytes, lengthBytes, callback), callback);
        }
    }
}

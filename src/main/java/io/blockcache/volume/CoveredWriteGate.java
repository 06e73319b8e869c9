package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.format.BackingHeader;
import java.nio.ByteBuffer;

/**
 * A volume's backing device as the engine writes it: every write, write-zeroes and discard of the volume's data
 * passes {@link CoveredWrites} first, so that none reaches the device before the journal records that remove the
 * clean copies it makes stale (docs/FORMAT.md §7 rule 10). Reads and flushes go straight through; so do writes
 * of the header and the damage map (below 1 MiB). The backing log (from 1 MiB to the data) is held like data: its
 * commit makes a group of dirty data land in place at the next open, so it must wait for the records those dirty
 * extents' inserts are in (found by the fuzz, seed 700150 of 2026-12-07: a committed group replayed at open over a
 * covered clean copy whose overwriting insert was lost).
 *
 * <p>Thread rule: the cache's loop thread, as {@link BlockDevice}.
 */
public final class CoveredWriteGate extends ForwardingDevice {
    private final CoveredWrites order;
    private final long unheldEndBytes;

    /**
     * @param dataOffsetBytes where the volume's data starts on {@code inner} (0: cached in place, every write held)
     */
    public CoveredWriteGate(BlockDevice inner, CoveredWrites order, long dataOffsetBytes) {
        super(inner);
        this.order = order;
        this.unheldEndBytes = Math.min(dataOffsetBytes, BackingHeader.LOG_OFFSET_BYTES);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (offsetBytes + src.remaining() <= unheldEndBytes || order.mayPass()) {
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

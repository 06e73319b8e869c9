package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;

/**
 * The backing device of a trace replay: a disk that keeps only its first {@link #KEPT_BYTES} (the backing header
 * the format writes and the open reads back) and forgets everything else, reading it as zeros, each request
 * taking {@link #LATENCY_NS} of simulated time. A replay checks miss counts, not contents, and the traces' working
 * sets (GiB) would not fit in memory twice; the cache device keeps real contents, so the engine's CRC checks run.
 *
 * <p>Thread rule: the loop's thread.
 */
final class TraceBacking implements BlockDevice {
    /** Bytes kept: the backing header's MiB and one more. */
    static final int KEPT_BYTES = 2 << 20;
    /** Every request's latency: a disk's seek and rotation, 4 ms (as {@code bench backing}'s slow disk). */
    static final long LATENCY_NS = 4_000_000L;

    private static final byte[] ZEROS = new byte[1 << 16];

    private final EventLoop loop;
    private final long sizeBytes;
    private final byte[] kept = new byte[KEPT_BYTES];
    private final DeviceCounters counters = new DeviceCounters();

    TraceBacking(EventLoop loop, long sizeBytes) {
        this.loop = loop;
        this.sizeBytes = sizeBytes;
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public int logicalBlockBytes() {
        return SECTOR_BYTES;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        int bytes = dst.remaining();
        counters.onSubmit(DeviceOp.READ, bytes, loop.nowNs());
        int position = dst.position();
        for (int i = 0; i < bytes; ) {
            long at = offsetBytes + i;
            int run = (int) Math.min(bytes - i, at < KEPT_BYTES ? KEPT_BYTES - at : ZEROS.length);
            dst.put(position + i, at < KEPT_BYTES ? kept : ZEROS, at < KEPT_BYTES ? (int) at : 0, run);
            i += run;
        }
        complete(DeviceOp.READ, bytes, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        int bytes = src.remaining();
        counters.onSubmit(DeviceOp.WRITE, bytes, loop.nowNs());
        int position = src.position();
        for (int i = 0; i < bytes && offsetBytes + i < KEPT_BYTES; i++) {
            kept[(int) (offsetBytes + i)] = src.get(position + i);
        }
        complete(DeviceOp.WRITE, bytes, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        counters.onSubmit(DeviceOp.FLUSH, 0, loop.nowNs());
        complete(DeviceOp.FLUSH, 0, callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        counters.onSubmit(DeviceOp.DISCARD, 0, loop.nowNs());
        complete(DeviceOp.DISCARD, 0, callback);
    }

    private void complete(DeviceOp op, long bytes, IoCallback callback) {
        loop.schedule(LATENCY_NS, () -> {
            counters.onComplete(op, bytes, LATENCY_NS, IoResult.OK, loop.nowNs());
            callback.complete(IoResult.OK);
        });
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    @Override
    public void close() {
    }
}

package io.blockcache.device;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A {@link BlockDevice} decorator base: every method forwards to the inner device unchanged. Subclasses
 * override only what they change (inject a fault, hold a request, time a completion, keep own counters)
 * and call {@link #inner()} for the rest, so a wrapper says what it does and nothing else.
 *
 * <p>Why a base class: six wrappers each carried the same eight forwarding methods; a method added to
 * {@code BlockDevice} now needs one forwarding copy, here.
 *
 * <p>Contract: as {@link BlockDevice}. A subclass that replaces a callback must still complete it exactly
 * once on the owning loop. Thread rule: as {@code BlockDevice} (submit on the owning loop's thread;
 * {@link #counters()} readable from any thread).
 */
public abstract class ForwardingDevice implements BlockDevice {
    private final BlockDevice inner;

    /** Wraps {@code inner}, which must not be null and must complete on the loop this wrapper is used on. */
    protected ForwardingDevice(BlockDevice inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    /** Returns the wrapped device. */
    protected final BlockDevice inner() {
        return inner;
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
    public int writeUnitBytes() {
        return inner.writeUnitBytes();
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        inner.read(offsetBytes, dst, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        inner.write(offsetBytes, src, fua, callback);
    }

    @Override
    public boolean writesZeroes() {
        return inner.writesZeroes();
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        inner.writeZeroes(offsetBytes, lengthBytes, fua, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        inner.flush(callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        inner.discard(offsetBytes, lengthBytes, callback);
    }

    @Override
    public String checkPresence() {
        return inner.checkPresence();
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

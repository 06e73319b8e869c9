package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;

/**
 * A plain simulated device as a {@link CrashTarget}: recovery is just power-on. The durability contract holds
 * for a raw device too, which is how the harness itself is tested before (and besides) the engine.
 */
public final class RawDeviceTarget implements CrashTarget {
    private final SimLoop loop;
    private final SimDevice device;

    /** Wraps {@code device}, which runs on {@code loop}. */
    public RawDeviceTarget(SimLoop loop, SimDevice device) {
        this.loop = loop;
        this.device = device;
    }

    @Override
    public void start(IoCallback done) {
        loop.execute(() -> done.complete(IoResult.OK));
    }

    @Override
    public BlockDevice device() {
        return device;
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback done) {
        device.write(offsetBytes, ByteBuffer.allocate(Math.toIntExact(lengthBytes)), fua, done);
    }

    @Override
    public boolean newestSubmissionWins() {
        return false;
    }

    @Override
    public void crash(Prng fate) {
        loop.discardPending();
        device.crash(fate);
    }

    @Override
    public void recover(IoCallback done) {
        device.powerOn(loop);
        loop.execute(() -> done.complete(IoResult.OK));
    }
}

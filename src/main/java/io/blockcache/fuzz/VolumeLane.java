package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.loop.Prng;
import io.blockcache.sim.CrashTarget;

/**
 * One volume of a {@link FuzzCacheSet} as the target of a {@code WorkloadDriver}: requests go to whatever
 * incarnation of the volume is running now. Power and recovery belong to the whole cache set, which the
 * scenario drives, so this target's own life-cycle calls are never made.
 */
final class VolumeLane implements CrashTarget {
    private final FuzzCacheSet cacheSet;
    private final int index;

    VolumeLane(FuzzCacheSet cacheSet, int index) {
        this.cacheSet = cacheSet;
        this.index = index;
    }

    @Override
    public void start(IoCallback done) {
        throw new UnsupportedOperationException("the fuzz scenario starts the whole cache set");
    }

    @Override
    public BlockDevice device() {
        return cacheSet.volume(index);
    }

    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback done) {
        cacheSet.volume(index).writeZeroes(offsetBytes, lengthBytes, fua, done);
    }

    @Override
    public boolean newestSubmissionWins() {
        return true; // the engine's promise for overlapping writes in flight together
    }

    @Override
    public void crash(Prng fate) {
        throw new UnsupportedOperationException("the fuzz scenario cuts the power of the whole cache set");
    }

    @Override
    public void recover(IoCallback done) {
        throw new UnsupportedOperationException("the fuzz scenario recovers the whole cache set");
    }
}

package io.blockcache.writeback;

import io.blockcache.loop.EventLoop;
import io.blockcache.volume.WritebackHooks;

/**
 * What the volume sees of its writeback engine: keys in flight, buffered keys, dirty bucket ages, and the end of a
 * hold of the volume's order ({@code orderHoldSettled}: the engine's handler).
 */
record EngineHooks(EventLoop loop, InFlightKeys inFlight, KeySources sources, DirtyAges ages,
                   java.util.function.Consumer<String> holdSettled) implements WritebackHooks {
    @Override
    public boolean writebackInFlight(long startSector, long lengthSectors) {
        return inFlight.overlaps(startSector, lengthSectors);
    }

    @Override
    public void frontEndChanging(long startSector, long lengthSectors) {
        sources.frontEndChanging(startSector, lengthSectors);
    }

    @Override
    public void dirtyBucketUsed(int bucket, int generation) {
        ages.used(bucket, generation, loop.nowNs());
    }

    @Override
    public void orderHoldSettled(String failure) {
        holdSettled.accept(failure);
    }
}

package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;

/**
 * Discard and write-zeroes: both drop every cached copy of a range and act on the backing device directly,
 * through the backing write gate so they land after any overlapping writeback write.
 *
 * <p>Thread rule: the loop thread.
 */
final class RangeEraser {
    private final VolumeContext context;
    private final FlushCoordinator flushes;
    private final ZeroWriter zeroWriter;

    RangeEraser(VolumeContext context, FlushCoordinator flushes) {
        this.context = context;
        this.flushes = flushes;
        this.zeroWriter = new ZeroWriter(context);
    }

    /** Discards {@code [startSector, + lengthSectors)} ({@code lengthBytes} long): cache copies and backing. */
    void discard(long startSector, long lengthSectors, long lengthBytes, IoCallback done) {
        // Queued only behind an overlapping write the throttle holds, so requests keep their submission order;
        // not held for writeback in flight: the discard passes the backing write gate after it.
        context.throttle.admit(startSector, lengthSectors, 0, () -> context.epochGate.submit(startSector,
                lengthSectors, () -> discardNow(startSector, lengthSectors, lengthBytes, done), done));
    }

    /** Returns false, having changed nothing, while epoch ordering holds it (it acts on the backing device). */
    private boolean discardNow(long startSector, long lengthSectors, long lengthBytes, IoCallback done) {
        if (!context.mayGoAround()) {
            return false;
        }
        context.hooks.frontEndChanging(startSector, lengthSectors);
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        context.backingGate.run(startSector, lengthSectors, release -> context.backingDevice.discard(
                context.backingOffset(startSector), lengthBytes, result -> {
                    release.run();
                    if (!result.ok()) {
                        context.inFlight.aroundWriteFailed(entry);
                    }
                    context.inFlight.end(entry);
                    done.complete(result.ok() ? IoResult.OK
                            : IoResult.error(IoStatus.IO_ERROR, "backing device discard failed: " + result.message()));
                }));
        return true;
    }

    /** Makes {@code [startSector, + lengthSectors)} read as zeroes; with {@code fua}, durable when done. */
    void writeZeroes(long startSector, long lengthSectors, boolean fua, IoCallback done) {
        // Like a discard: queued only behind an overlapping held write, and not held for writeback, since the
        // zeroes pass the backing write gate after any overlapping writeback write and so land last.
        context.throttle.admit(startSector, lengthSectors, 0, () -> context.epochGate.submit(startSector,
                lengthSectors, () -> writeZeroesNow(startSector, lengthSectors, fua, done), done));
    }

    /** Returns false, having changed nothing, while epoch ordering holds it (it acts on the backing device). */
    private boolean writeZeroesNow(long startSector, long lengthSectors, boolean fua, IoCallback done) {
        if (!context.mayGoAround()) {
            return false;
        }
        context.hooks.frontEndChanging(startSector, lengthSectors);
        if (context.index.overlapsDirty(startSector, lengthSectors)) {
            // Zeroes are written to the backing device and made durable before the dirty copies go.
            new OrderedAroundWrite(context, startSector, lengthSectors, fua, flushes::noteBackingWrite)
                    .writeZeroes(zeroWriter, fua ? result -> flushes.afterFua(result, done) : done);
            return true;
        }
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        context.backingGate.run(startSector, lengthSectors, release -> zeroWriter.write(startSector, lengthSectors, fua,
                result -> {
                    release.run();
                    if (!result.ok()) {
                        context.inFlight.aroundWriteFailed(entry);
                    }
                    context.inFlight.end(entry);
                    if (result.ok() && !fua) {
                        flushes.noteBackingWrite();
                    }
                    if (fua) {
                        flushes.afterFua(result, done);
                    } else {
                        done.complete(result);
                    }
                }));
        return true;
    }
}

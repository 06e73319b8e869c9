package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;

/**
 * A write that must go to the backing device although dirty cached extents overlap it (no room in the cache,
 * or write-zeroes): data first, then a backing flush, and only then the dirty copies are dropped (journaled).
 *
 * <p>Why this order: dropping a dirty extent is journaled, and a journal commit can happen at any time. Were
 * the drop durable before the new data, a crash would leave the block with its backing contents, older than
 * the dirty data the client may have flushed (docs/ARCHITECTURE.md §5 item 3). Until the drop, reads still see the old
 * dirty data, which is fine for a write not yet acknowledged. The drop spares only parts where a newer write has
 * installed data in the cache (see {@link InFlightWrites.Entry#forEachNotInstalledOver}).
 *
 * <p>Thread rule: the loop thread.
 */
final class OrderedAroundWrite {
    private final VolumeContext context;
    private final long startSector;
    private final long lengthSectors;
    private final boolean fua;
    private final Runnable backingWriteDone;
    private final InFlightWrites.Entry entry;
    private Runnable release = () -> { };

    /**
     * @param backingWriteDone told when data reached the backing device (the volume tracks unflushed writes)
     */
    OrderedAroundWrite(VolumeContext context, long startSector, long lengthSectors, boolean fua,
                       Runnable backingWriteDone) {
        this.context = context;
        this.startSector = startSector;
        this.lengthSectors = lengthSectors;
        this.fua = fua;
        this.backingWriteDone = backingWriteDone;
        // Claims its range only when it drops the cached copies (see afterData), not now: until then an older
        // cached write still in flight must be able to install, or reads would serve data older than both.
        this.entry = context.inFlight.beginWrite(startSector, lengthSectors, false);
    }

    /** Writes {@code src} to the backing device, then flushes it, then drops the covered dirty copies. */
    void writeData(ByteBuffer src, IoCallback callback) {
        ByteBuffer data = src.duplicate();
        context.backingGate.run(startSector, lengthSectors, gateRelease -> {
            release = gateRelease;
            context.dropClean(startSector, lengthSectors); // before the backing data changes under them
            context.backingDevice.write(context.backingOffset(startSector), data, fua,
                    result -> afterData(result, callback));
        });
    }

    /** Writes zeroes over the range, then flushes, then drops the covered cached copies. */
    void writeZeroes(ZeroWriter zeroWriter, IoCallback callback) {
        context.backingGate.run(startSector, lengthSectors, gateRelease -> {
            release = gateRelease;
            context.dropClean(startSector, lengthSectors); // before the backing data changes under them
            zeroWriter.write(startSector, lengthSectors, fua, result -> afterData(result, callback));
        });
    }

    private void afterData(IoResult written, IoCallback callback) {
        if (!written.ok()) {
            finish(IoResult.error(IoStatus.IO_ERROR, "backing device write failed: " + written.message()), callback);
            return;
        }
        backingWriteDone.run();
        context.stats.writeBypassedSectors.addAndGet(lengthSectors);
        context.backingDevice.flush(flushed -> {
            if (!flushed.ok()) {
                finish(IoResult.error(IoStatus.IO_ERROR, "backing device flush before dropping dirty copies failed: "
                        + flushed.message()), callback);
                return;
            }
            entry.forEachNotInstalledOver(context::invalidate);
            context.inFlight.installed(entry); // from now on this write is what the range holds
            finish(IoResult.OK, callback);
        });
    }

    private void finish(IoResult result, IoCallback callback) {
        release.run(); // a newer overlapping write may reach the backing device only after the drop
        context.inFlight.end(entry);
        callback.complete(result);
    }
}

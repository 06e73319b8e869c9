package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;

/**
 * The volume's durability bookkeeping (docs/ARCHITECTURE.md §4.3): which backing writes a FLUSH must still cover, the
 * journal commit behind every FLUSH and FUA write, and the sticky failure after which the volume never again
 * reports anything durable (docs/ARCHITECTURE.md §5 item 5).
 *
 * <p>Thread rule: the loop thread.
 */
final class FlushCoordinator {
    private final VolumeContext context;
    private long backingWritesSinceFlush;
    private int backingFlushesInFlight;
    private boolean flushFailed;

    FlushCoordinator(VolumeContext context) {
        this.context = context;
    }

    /** A write that was not FUA reached the backing device: the next FLUSH must flush the backing device. */
    void noteBackingWrite() {
        backingWritesSinceFlush++;
    }

    /** Completes a FUA request once {@code result} is in: a successful one only after its journal commit. */
    void afterFua(IoResult result, IoCallback callback) {
        if (!result.ok()) {
            callback.complete(result);
            return;
        }
        // The data is durable where it went; the index records that point at it (or that invalidated older
        // copies) must be durable too before the FUA write may complete.
        commitJournal(callback);
    }

    /** Makes every write completed before now durable: a journal commit and, if needed, a backing flush. */
    void flush(IoCallback done) {
        IoJoin parts = new IoJoin(done);
        commitJournal(parts.add());
        // A backing flush still in flight may be the one that covers writes this FLUSH must cover (it was
        // submitted by an earlier FLUSH, which reset the count): then this FLUSH needs its own backing flush too.
        if (backingWritesSinceFlush > 0 || backingFlushesInFlight > 0 || flushFailed) {
            long covered = backingWritesSinceFlush;
            backingWritesSinceFlush = 0;
            backingFlushesInFlight++;
            IoCallback backingPart = parts.add();
            context.backingDevice.flush(result -> {
                backingFlushesInFlight--;
                if (!result.ok()) {
                    flushFailed = true;
                    backingWritesSinceFlush += covered;
                }
                backingPart.complete(result.ok() ? IoResult.OK
                        : IoResult.error(IoStatus.IO_ERROR, "backing device flush failed: " + result.message()));
            });
        }
        parts.seal();
    }

    private void commitJournal(IoCallback callback) {
        if (flushFailed) {
            IoResult refused = IoResult.error(IoStatus.IO_ERROR,
                    "an earlier flush failed; this volume can no longer promise durability");
            // Never call back inside the submitting call (BlockDevice contract).
            context.loop.execute(() -> callback.complete(refused));
            return;
        }
        context.journal.commit(result -> {
            if (!result.ok()) {
                flushFailed = true;
            }
            callback.complete(result);
        });
    }
}

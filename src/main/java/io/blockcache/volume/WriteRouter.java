package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * Where a front-end write goes (docs/ARCHITECTURE.md §4.2): the bypass decision, admission through the write throttle,
 * then into the cache or around it, and for a FUA write the journal commit before it completes.
 *
 * <p>Thread rule: the loop thread.
 */
final class WriteRouter {
    private static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    /** Routed writes kept for reuse: more than the front end has in flight at once (NBD: 32 per connection). */
    private static final int FREE_MAX = 1024;

    private final VolumeContext context;
    private final FlushCoordinator flushes;
    private final ArrayDeque<Routed> free = new ArrayDeque<>();

    WriteRouter(VolumeContext context, FlushCoordinator flushes) {
        this.context = context;
        this.flushes = flushes;
    }

    /**
     * Writes {@code src} (a validated, non-empty, sector-aligned request) at {@code startSector}; with
     * {@code fua}, {@code done} runs once the data and the index records pointing at it are durable.
     */
    void write(long startSector, ByteBuffer src, boolean fua, IoCallback done) {
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        IoCallback durable = fua ? result -> flushes.afterFua(result, done) : done;
        CacheMode mode = context.mode;
        BypassReason bypass = mode == CacheMode.WRITEBACK || mode == CacheMode.WRITETHROUGH
                ? context.bypass.forWrite(startSector, lengthSectors, fua, mode == CacheMode.WRITEBACK)
                : BypassReason.NONE;
        if (bypass == BypassReason.SEQUENTIAL && context.index.pins().overlaps(startSector, lengthSectors)) {
            // A stream into a pinned range stays in the cache (docs/CACHING.md "Pinning"); congestion and the
            // dirty-data cutoffs still apply: they protect the cache device, not its hit ratio.
            bypass = BypassReason.NONE;
        }
        long delayNs = throttleDelayNs(startSector, lengthSectors, mode, bypass);
        context.throttle.admit(startSector, lengthSectors, delayNs,
                Routed.take(this, startSector, src, fua, bypass, durable, done));
    }

    /**
     * One write between the throttle and its outcome, reused (nothing allocated per steady-state request on
     * the loop thread): the throttle's task, the epoch gate's attempt, and the callback of its cached write. It goes
     * back to the free list when it is handed on (around the cache: the paths there keep what they need) or when its
     * cached write completes, before its caller hears of it. A write the gate refuses is left to the garbage
     * collector.
     */
    private static final class Routed implements Runnable, BooleanSupplier, IoCallback {
        private final WriteRouter router;
        private long startSector;
        private int lengthSectors;
        private ByteBuffer src;
        private boolean fua;
        private BypassReason bypass;
        private IoCallback durable;
        private IoCallback done;
        private InFlightWrites.Entry entry;

        private Routed(WriteRouter router) {
            this.router = router;
        }

        static Routed take(WriteRouter router, long startSector, ByteBuffer src, boolean fua, BypassReason bypass,
                           IoCallback durable, IoCallback done) {
            Routed write = router.free.pollFirst();
            if (write == null) {
                write = new Routed(router);
            }
            write.startSector = startSector;
            write.lengthSectors = src.remaining() / SECTOR_BYTES;
            write.src = src;
            write.fua = fua;
            write.bypass = bypass;
            write.durable = durable;
            write.done = done;
            return write;
        }

        /** Admitted by the throttle. */
        @Override
        public void run() {
            if (router.context.epochGate.bypassed()) {
                router.route(this); // unordered: never waits
            } else {
                router.context.epochGate.submit(startSector, lengthSectors, this, done);
            }
        }

        /** The epoch gate's attempt: false, having changed nothing, if the write must wait. */
        @Override
        public boolean getAsBoolean() {
            return router.route(this);
        }

        /** Its cached write is done. */
        @Override
        public void complete(IoResult result) {
            InFlightWrites.Entry written = entry;
            long start = startSector;
            int length = lengthSectors;
            boolean withFua = fua;
            IoCallback whenDurable = durable;
            IoCallback whenDone = done;
            giveBack();
            router.cachedWriteDone(written, start, length, withFua, whenDurable, whenDone, result);
        }

        void giveBack() {
            if (src == null) {
                throw new IllegalStateException("routed write given back twice");
            }
            src = null;
            durable = null;
            done = null;
            entry = null;
            if (router.free.size() < FREE_MAX) {
                router.free.addFirst(this); // before the caller runs: what it submits next can take it
            }
        }
    }

    /**
     * How long the throttle holds a write: only a write-back write that would add new dirty data (cached, over
     * no dirty data) is ever held. Writes over dirty data replace it rather than add to it, and writes going
     * around the cache add none; holding them would slow writers without slowing the growth of dirty data.
     */
    private long throttleDelayNs(long startSector, int lengthSectors, CacheMode mode, BypassReason bypass) {
        if (mode != CacheMode.WRITEBACK || bypass != BypassReason.NONE) {
            return 0;
        }
        double speedup = context.bypass.throttleSpeedup();
        if (speedup < 0 || context.index.overlapsDirty(startSector, lengthSectors)) {
            return 0;
        }
        long delayNs = context.throttle.delayNs(lengthSectors, speedup,
                context.bypass.backingRateSectorsPerSecond(), context.bypass.settings().throttleDelayNsMax());
        if (delayNs > 0) {
            context.stats.countThrottled(delayNs);
        }
        return delayNs;
    }

    /**
     * Sends a write into the cache or around it. A write that overlaps dirty data, or an extent whose writeback
     * is in flight, is cached as a newer dirty extent whatever the mode (docs/ARCHITECTURE.md §1.2 item 3); if the
     * cache has no room it takes the ordered path around it ({@link OrderedAroundWrite}). The bypass policy's
     * {@code bypass} applies only to a write that overlaps no dirty data; it sends a write-back write around the
     * cache and keeps a write-through write from leaving a clean copy.
     *
     * @return false, having changed nothing, if epoch ordering makes the write wait ({@link EpochGate})
     */
    private boolean route(Routed write) {
        long startSector = write.startSector;
        ByteBuffer src = write.src;
        boolean fua = write.fua;
        BypassReason bypass = write.bypass;
        IoCallback durable = write.durable;
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        CacheMode mode = context.mode;
        // A write-back write that no bypass applies to goes into the cache whatever it overlaps, so its look-up is
        // put off until something depends on it (the first descent of the index for every such write: 5 % of the
        // loop under 4 KiB random writes, docs/BENCHMARKS.md); the index does not change within this step.
        boolean lookUpNow = mode != CacheMode.WRITEBACK || bypass != BypassReason.NONE;
        boolean overDirty = lookUpNow && overDirty(startSector, lengthSectors);
        // Never bypass over dirty data: the rules below for writes over dirty data stay exactly as they are.
        boolean bypassed = bypass != BypassReason.NONE && !overDirty;
        boolean intoCache = (mode == CacheMode.WRITEBACK && !bypassed) || overDirty;
        // Epoch ordering: wait (changing nothing) while this write would overtake an older epoch's writeback.
        if (!context.mayReplaceDirty(startSector, lengthSectors) || (!intoCache && !context.mayGoAround())) {
            return false;
        }
        context.hooks.frontEndChanging(startSector, lengthSectors);
        if (bypassed && (mode == CacheMode.WRITEBACK || mode == CacheMode.WRITETHROUGH)) {
            context.stats.countBypass(bypass, lengthSectors);
        }
        // A write over dirty data goes into the cache whatever the mode (bcache forces such writes into
        // writeback): going around would have to drop the dirty copy before the new data is durable, and an
        // old copy being written back could land on the backing device after it.
        if (intoCache) {
            CachedWrite cached = CachedWrite.take(context, startSector, src, true);
            if (cached.reserve()) {
                if (overDirty && mode != CacheMode.WRITEBACK) {
                    context.stats.writesForcedIntoCache.incrementAndGet();
                }
                write.entry = context.inFlight.beginWrite(startSector, lengthSectors, false);
                cached.write(write.entry, write);
                return true;
            }
            // No free bucket: go around the cache. Over dirty data that is the ordered path; it passes the
            // backing write gate after any overlapping writeback write, so old data never lands last. With epoch
            // ordering only once the older epochs are written back (the failed reservation changed nothing).
            if (!context.mayGoAround()) {
                return false;
            }
            if (!lookUpNow) {
                overDirty = overDirty(startSector, lengthSectors);
            }
            context.stats.noRoomBypassedSectors.addAndGet(lengthSectors);
        }
        write.giveBack(); // the paths around the cache keep what they need themselves
        if (overDirty) {
            new OrderedAroundWrite(context, startSector, lengthSectors, fua, flushes::noteBackingWrite)
                    .writeData(src, durable);
            return true;
        }
        // Going around invalidates every cached copy the write overlaps, bypassed or not (docs/ARCHITECTURE.md §1.2
        // item 5).
        writeAround(startSector, src, fua, mode == CacheMode.WRITETHROUGH && !bypassed, durable);
        return true;
    }

    /** True if the range overlaps dirty data, or an extent whose writeback is in flight. */
    private boolean overDirty(long startSector, int lengthSectors) {
        return context.hooks.writebackInFlight(startSector, lengthSectors)
                || context.index.overlapsDirty(startSector, lengthSectors);
    }

    /** A write's cached copy is on the cache device (or failed): ends its in-flight entry and answers it. */
    private void cachedWriteDone(InFlightWrites.Entry entry, long startSector, int lengthSectors, boolean fua,
                                 IoCallback durable, IoCallback done, IoResult result) {
        context.inFlight.end(entry);
        if (result.ok() && entry.hiddenByAroundWrite()) {
            afterAroundWrites(entry, startSector, lengthSectors, fua, durable, done);
            return;
        }
        context.inFlight.recycle(entry); // nothing of this write looks at it again
        durable.complete(result);
    }

    /**
     * Completes a cached write part of which a newer write going around the cache claimed: that part of its data
     * was never installed, so until the newer write has landed the volume holds neither (the backing device
     * still has what came before both). Acknowledge only once every overlapping around-cache write has ended:
     * then a later FLUSH covers the newer write, and a FUA write flushes it itself (journal and backing device).
     * Found by the fuzz: acknowledged at once, such a write's part was lost in a power cut although a FUA
     * (seed 156) or a later FLUSH (seed 2209) had made it durable.
     */
    private void afterAroundWrites(InFlightWrites.Entry entry, long startSector, long lengthSectors, boolean fua,
                                   IoCallback durable, IoCallback done) {
        context.inFlight.whenNoAroundWriteOverlaps(startSector, lengthSectors, () -> context.loop.execute(() -> {
            if (entry.hiddenByFailedAroundWrite()) {
                durable.complete(IoResult.error(IoStatus.IO_ERROR, "a newer overlapping write around the cache"
                        + " failed, and this write's data under it was not kept"));
            } else if (fua) {
                flushes.flush(done);
            } else {
                durable.complete(IoResult.OK);
            }
        }));
    }

    /**
     * Writes to the backing device, invalidating cached copies first; for write-through, also installs a
     * clean copy in the cache once both writes are done.
     */
    private void writeAround(long startSector, ByteBuffer src, boolean fua, boolean keepCleanCopy,
                             IoCallback callback) {
        int lengthSectors = src.remaining() / SECTOR_BYTES;
        InFlightWrites.Entry entry = context.inFlight.beginWrite(startSector, lengthSectors, true);
        context.invalidate(startSector, lengthSectors);
        IoJoin parts = new IoJoin(result -> {
            if (!result.ok()) {
                context.inFlight.aroundWriteFailed(entry);
            }
            context.inFlight.end(entry);
            callback.complete(result);
        });
        IoCallback backingPart = parts.add();
        // The clean copy is written only once the backing write succeeded: a copy of data the backing device
        // refused would be served as clean and change to the old data when evicted (found by the fuzz with
        // injected write errors). It costs write-through one cache write of latency after the backing write.
        IoCallback copyPart = keepCleanCopy ? parts.add() : null;
        ByteBuffer copyData = src.duplicate();
        ByteBuffer data = src.duplicate();
        context.backingGate.run(startSector, lengthSectors, release -> context.backingDevice.write(
                context.backingOffset(startSector), data, fua, result -> {
                    release.run();
                    if (result.ok()) {
                        context.stats.writeBypassedSectors.addAndGet(lengthSectors);
                        if (!fua) {
                            flushes.noteBackingWrite();
                        }
                    }
                    if (copyPart != null) {
                        CachedWrite copy = result.ok() ? CachedWrite.take(context, startSector, copyData, false) : null;
                        if (copy != null && copy.reserve()) {
                            // A failed clean copy only costs a future miss; the write succeeded on the backing device.
                            copy.write(entry, copied -> copyPart.complete(IoResult.OK));
                        } else {
                            copyPart.complete(IoResult.OK);
                        }
                    }
                    backingPart.complete(result.ok() ? IoResult.OK
                            : IoResult.error(IoStatus.IO_ERROR, "backing device write failed: " + result.message()));
                }));
        parts.seal();
    }
}

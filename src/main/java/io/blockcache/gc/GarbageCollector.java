package io.blockcache.gc;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketObserver;
import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.index.ExtentIndex;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Clock;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.VolumeIndex;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Garbage collection of one cache set (docs/GC.md): the entry point that owns the mark, eviction, moving
 * GC, pacing, triggers and statistics. It is the allocator's {@link BucketObserver} and installs the
 * {@link GenerationGuard} as its bump guard.
 *
 * <p><b>A run:</b> evict if free space is low (immediate relief from exact incremental counts); pick the
 * moving-GC candidates; mark in slices; verify the recount, offer the guard its next floor, retry releases the
 * guard refused, evict again if needed; move the candidates' live extents; record statistics.
 *
 * <p><b>Pacing ({@link MarkPacer}, docs/GC.md):</b> a slice handles as many leaves as fit in
 * {@code sliceCostNsTarget} of measured loop time, at least {@code nodesPerSliceMin} (bcache's GC-latency patch);
 * between slices the run yields to the loop at once unless front-end I/O is in flight, and then sleeps at most
 * {@code sliceSleepNs} (bcache's GC-latency patch) and only as much as the duration budget allows
 * ({@code durationPercentMax} % of the unsliced estimate, or half the average GC interval); it never sleeps while an
 * allocation has failed since the last slice or the next one would fail. Where a slice's cost cannot be measured
 * (simulated time), that patch's rules alone apply.
 *
 * <p><b>Triggers:</b> 1/{@code writtenFractionDenominator} of the data capacity allocated since the last run
 * (bcache's sectors_to_gc); free buckets below the low mark or a failed allocation (eviction at once, and a
 * run at most every {@link #SHORTAGE_RUN_GAP_NS}); {@link #gc} on request.
 *
 * <p>Thread rule: the cache's loop thread; observer callbacks only record and schedule.
 */
public final class GarbageCollector implements BucketObserver {
    /** Shortage-triggered runs at most once a second: eviction itself needs no mark, only stale drops do. */
    static final long SHORTAGE_RUN_GAP_NS = 1_000_000_000L;

    private final EventLoop loop;
    private final CacheSpace space;
    private final BucketTable table;
    private final BucketAllocator allocator;
    private final List<ExtentIndex> indexes = new ArrayList<>();
    /** The volumes in the order {@link MovingGc} numbers them (it has its own list, kept in step by addVolume). */
    private final List<VolumeIndex> volumes = new ArrayList<>();
    private final PinnedBuckets pinned;
    /** Buckets eviction passed over for their pinned data, whose pinned extents the next move takes out. */
    private final BitSet rescueWanted = new BitSet();
    private final CheckpointPort checkpoints;
    private final BooleanSupplier frontEndBusy;
    private final GcStats stats = new GcStats();
    private final BucketRecency recency;
    private final GenerationGuard guard;
    private final Evictor evictor;
    private final MovingGc moving;
    private final MarkPacer pacer;
    private final int dataBuckets;
    private final MovingCandidates candidates;
    private GcConfig config;
    private MarkPass mark;
    private List<IoCallback> waiters = new ArrayList<>();
    private long sectorsAllocatedSinceRun;
    /** Buckets allocated, and those the dirty write point opened, since the last run started. */
    private long bucketsAllocatedSinceRun;
    private long dirtyOpenedAtRun;
    /**
     * The dirty writes' share of the bucket allocations in the last complete interval between runs; 1 until one
     * was measured, so a cache just opened keeps the whole margin.
     */
    private double lastDirtyShare = 1;
    private long failuresAtLastSlice;
    private boolean runScheduled;
    private boolean reliefScheduled;
    private boolean guardCheckpointRunning;
    private boolean guardCheckScheduled;
    private boolean guardRetryScheduled;
    private boolean moveRunning;
    private long lastRunStartNs = Long.MIN_VALUE / 2;

    /**
     * Builds GC over {@code space} and the volumes' indexes, and hooks itself into the allocator.
     *
     * @param frontEndBusy true while any front-end request is in flight
     */
    public GarbageCollector(EventLoop loop, BlockDevice cacheDevice, CacheSpace space, List<VolumeIndex> volumes,
                            CheckpointPort checkpoints, BooleanSupplier frontEndBusy, GcConfig config) {
        this.loop = loop;
        this.space = space;
        this.table = space.table();
        this.allocator = space.allocator();
        for (VolumeIndex volume : volumes) {
            indexes.add(volume.extents());
            this.volumes.add(volume);
        }
        this.pinned = new PinnedBuckets(table, this.volumes);
        this.checkpoints = checkpoints;
        this.frontEndBusy = frontEndBusy;
        this.config = config;
        this.dataBuckets = table.bucketCount() - table.count(BucketState.JOURNAL);
        this.recency = new BucketRecency(loop, config.recencyTickNs(), table.bucketCount());
        this.guard = new GenerationGuard(table, checkpoints, config.generationDistanceMax());
        this.evictor = new Evictor(table, allocator, recency, dataBuckets);
        this.candidates = new MovingCandidates(table, evictor, dataBuckets, stats);
        this.moving = new MovingGc(loop, cacheDevice, space.layout(), table, allocator, new ArrayList<>(volumes),
                stats);
        this.pacer = new MarkPacer(loop); // the loop's own time: engine code reads no other clock
        allocator.setObserver(this);
        allocator.setBumpGuard(guard);
    }

    /**
     * Adds a volume attached while the cache runs: marked from the next run on, its pieces moved by their place in
     * the list. A detached volume's index stays in the list, empty, so that the places of the others never shift
     * under a mark or a move in progress.
     */
    public void addVolume(VolumeIndex volume) {
        Checks.onLoop(loop, "GarbageCollector.addVolume");
        indexes.add(volume.extents());
        volumes.add(volume);
        moving.addVolume(volume);
    }

    /** Runs a GC now, or joins the one running; {@code done} when it has finished. */
    public void gc(IoCallback done) {
        Checks.onLoop(loop, "GarbageCollector.gc");
        waiters.add(done);
        if (mark == null && !moveRunning && !runScheduled) {
            startRun();
        }
    }

    /** True while a run is in progress. */
    public boolean running() {
        return mark != null || moveRunning;
    }

    private void requestRun() {
        if (mark != null || moveRunning || runScheduled) {
            return;
        }
        runScheduled = true;
        loop.execute(() -> {
            runScheduled = false;
            if (mark == null && !moveRunning) {
                startRun();
            }
        });
    }

    private void startRun() {
        stats.onStart(loop.nowNs());
        lastRunStartNs = loop.nowNs();
        sectorsAllocatedSinceRun = 0;
        long dirtyOpened = space.dirtyWritePoint().bucketsOpened();
        if (bucketsAllocatedSinceRun > 0) {
            lastDirtyShare = Math.min(1, (dirtyOpened - dirtyOpenedAtRun) / (double) bucketsAllocatedSinceRun);
        }
        bucketsAllocatedSinceRun = 0;
        dirtyOpenedAtRun = dirtyOpened;
        evict();
        long totalNodes = 0;
        for (ExtentIndex index : indexes) {
            totalNodes += index.nodeCount();
        }
        pacer.startRun(loop.nowNs(), totalNodes, stats.intervalNsAverage(), config);
        mark = new MarkPass(table, space, indexes, candidates.choose(config));
        failuresAtLastSlice = allocator.allocationFailures();
        loop.execute(this::markSlice);
    }

    private void markSlice() {
        long nodesBefore = mark.nodesVisited();
        pacer.beginSlice();
        boolean finishedMark = mark.slice(pacer.sliceNodes());
        stats.onSlice(pacer.endSlice(mark.nodesVisited() - nodesBefore));
        if (!finishedMark) {
            boolean allocationsWaiting = allocator.allocationFailures() != failuresAtLastSlice
                    || allocator.freeBuckets() <= allocator.metadataReserveBuckets();
            failuresAtLastSlice = allocator.allocationFailures();
            long pauseNs = pacer.pauseNs(loop.nowNs(), frontEndBusy.getAsBoolean(), allocationsWaiting);
            if (pauseNs > 0) {
                loop.schedule(pauseNs, this::markSlice);
            } else {
                loop.execute(this::markSlice);
            }
            return;
        }
        MarkPass finished = mark;
        finished.verify();
        stats.addStaleKeysDropped(finished.staleDropped());
        guard.markCompleted(finished.startGenerations());
        mark = null;
        moveRunning = true;
        allocator.retryRefusedReleases();
        if (allocator.releaseRefusedBuckets() > 0) {
            guardCheckpoint();
        }
        evict();
        List<MovePiece> toMove = finished.pieces();
        if (!rescueWanted.isEmpty()) {
            toMove = new ArrayList<>(toMove);
            toMove.addAll(pinned.piecesIn(rescueWanted));
            rescueWanted.clear();
        }
        moving.move(toMove, () -> finishRun(finished));
    }

    private void finishRun(MarkPass finished) {
        moveRunning = false;
        stats.onEnd(loop.nowNs(), finished.nodesVisited(), finished.slices());
        stats.onMarkPaced(pacer.workNs(), pacer.sleptNs());
        List<IoCallback> toCall = waiters;
        waiters = new ArrayList<>();
        for (IoCallback waiter : toCall) {
            waiter.complete(IoResult.OK);
        }
    }

    private void evict() {
        BitSet keep = pinned.scan();
        if (keep == null) {
            stats.addEvicted(evictor.evictIfLow(config, dirtyShare()));
            return;
        }
        BitSet passedOver = new BitSet();
        stats.addEvicted(evictor.evictIfLow(config, dirtyShare(), keep, passedOver));
        int wanted = rescueWanted.cardinality();
        for (int b = passedOver.nextSetBit(0); b >= 0 && wanted < config.movingBucketsMax();
             b = passedOver.nextSetBit(b + 1)) {
            if (pinned.worthMoving(b) && !rescueWanted.get(b)) {
                rescueWanted.set(b);
                wanted++;
            }
        }
        if (!rescueWanted.isEmpty() && !running()) {
            rescuePinned();
        }
    }

    /**
     * Moves the pinned extents out of the buckets eviction passed over (docs/CACHING.md "Pinning") while no run is in
     * progress (a run's move takes them along instead), then evicts again if the move made progress: the buckets it
     * emptied of pinned data are ordinary victims now. A move that made none (no free bucket for the GC write point)
     * waits for the next trigger, so that it cannot spin.
     */
    private void rescuePinned() {
        List<MovePiece> toMove = pinned.piecesIn(rescueWanted);
        rescueWanted.clear();
        if (toMove.isEmpty()) {
            return;
        }
        moveRunning = true;
        long movedBefore = stats.movedBytes();
        moving.move(toMove, () -> {
            moveRunning = false;
            stats.addPinnedRescues(1);
            if (!waiters.isEmpty()) {
                startRun(); // a gc() asked while the move ran joined no run
            } else if (stats.movedBytes() > movedBefore) {
                scheduleRelief();
            }
        });
    }

    /**
     * The share of bucket allocations taken by dirty writes lately: the larger of the last interval's and the
     * current one's (so a burst of writes after a read-only spell gets the margin back within a few buckets).
     * The free margin is sized by it ({@link Evictor#lowMarkBuckets(GcConfig, double)}).
     */
    double dirtyShare() {
        long dirtyNow = space.dirtyWritePoint().bucketsOpened() - dirtyOpenedAtRun;
        double current = bucketsAllocatedSinceRun == 0 ? 0 : Math.min(1, dirtyNow / (double) bucketsAllocatedSinceRun);
        return Math.max(lastDirtyShare, current);
    }

    /** Makes the guard's pending floor durable with a checkpoint, then retries the refused releases. */
    private void guardCheckpoint() {
        if (guard.applyPendingIfDurable()) {
            allocator.retryRefusedReleases();
            return;
        }
        if (!guard.hasPendingFloor()) {
            requestRun(); // a complete mark offers the next floor
            return;
        }
        if (guardCheckpointRunning) {
            return;
        }
        guardCheckpointRunning = true;
        checkpoints.start(result -> {
            guardCheckpointRunning = false;
            if (guard.applyPendingIfDurable()) {
                allocator.retryRefusedReleases();
            } else if (!result.ok()) {
                retryGuardCheckpointLater();
            }
        });
    }

    /**
     * A checkpoint the refused releases wait for failed (the cache device full, a passing write error): tries again
     * after {@link #SHORTAGE_RUN_GAP_NS} while any release still waits, so the buckets come back by themselves once
     * the device takes writes again, even if no front-end request arrives to refuse another release.
     */
    private void retryGuardCheckpointLater() {
        if (guardRetryScheduled) {
            return;
        }
        guardRetryScheduled = true;
        loop.schedule(SHORTAGE_RUN_GAP_NS, () -> {
            guardRetryScheduled = false;
            if (allocator.releaseRefusedBuckets() > 0) {
                guardCheckpoint();
            }
        });
    }

    @Override
    public void onAllocated(int bucket) {
        recency.touch(bucket);
        sectorsAllocatedSinceRun += table.bucketSectors();
        bucketsAllocatedSinceRun++;
        long capacitySectors = (long) dataBuckets * table.bucketSectors();
        if (sectorsAllocatedSinceRun * config.writtenFractionDenominator() >= capacitySectors) {
            requestRun();
        }
        if (evictor.freeSoonBuckets() < evictor.lowMarkBuckets(config, dirtyShare())) {
            scheduleRelief();
        }
    }

    @Override
    public void onAllocationFailed() {
        scheduleRelief();
    }

    private void scheduleRelief() {
        if (reliefScheduled) {
            return;
        }
        reliefScheduled = true;
        loop.execute(() -> {
            reliefScheduled = false;
            evict();
            if (loop.nowNs() - lastRunStartNs >= SHORTAGE_RUN_GAP_NS) {
                requestRun();
            }
        });
    }

    @Override
    public void onReadHit(int bucket) {
        recency.touch(bucket);
    }

    @Override
    public void onCountsChanged(int bucket) {
        if (mark != null) {
            mark.disturbed(bucket);
        }
    }

    @Override
    public void onReleaseRefused(int bucket) {
        if (!guardCheckScheduled) {
            guardCheckScheduled = true;
            loop.execute(() -> {
                guardCheckScheduled = false;
                guardCheckpoint();
            });
        }
    }

    /** The statistics. */
    public GcStats stats() {
        return stats;
    }

    /** The generation guard (statistics and tests). */
    public GenerationGuard guard() {
        return guard;
    }

    /** Replaces the clock that measures mark slices (tests drive it by hand; engine code keeps the loop's). */
    void setSliceCostClock(Clock clock) {
        pacer.setCostClock(clock);
    }

    /** The settings in force. */
    public GcConfig config() {
        return config;
    }

    /**
     * Replaces the settings (live knobs). The recency tick stays as built; any generation bound below 2^15 is
     * safe to switch to, because the guard's floors hold whatever the bound.
     */
    public void setConfig(GcConfig newConfig) {
        Checks.onLoop(loop, "GarbageCollector.setConfig");
        config = newConfig;
        guard.setDistanceMax(newConfig.generationDistanceMax());
    }

    /** Bucket allocations for data refused since start: each write or fill went around the cache. */
    public long allocationWaits() {
        return allocator.allocationFailures();
    }

    /** How the buckets are used now. O(buckets). */
    public BucketCounts bucketCounts() {
        int free = 0, pending = 0, open = 0, clean = 0, dirty = 0, empty = 0, metadata = 0, journal = 0;
        for (int b = 0; b < table.bucketCount(); b++) {
            switch (table.state(b)) {
                case FREE -> free++;
                case REUSE_PENDING -> pending++;
                case OPEN -> open++;
                case METADATA -> metadata++;
                case JOURNAL -> journal++;
                case SEALED -> {
                    if (table.dirtySectors(b) > 0) {
                        dirty++;
                    } else if (table.liveSectors(b) > 0) {
                        clean++;
                    } else {
                        empty++;
                    }
                }
            }
        }
        return new BucketCounts(free, pending, open, clean, dirty, empty, metadata, journal);
    }
}

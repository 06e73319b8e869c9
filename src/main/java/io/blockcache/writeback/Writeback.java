package io.blockcache.writeback;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.Checks;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The writeback engine of one volume (docs/WRITEBACK.md): scans dirty keys, runs passes that copy them from the cache
 * to the backing device, marks them clean behind a backing flush, and decides how fast — PI rate while the front
 * end is busy, full speed with large passes and a governed queue when it is idle or draining, and always at
 * full speed for keys older than dirty_expire.
 *
 * <p>Everything runs on the loop, driven by two timers (the 100 ms sample, the rate update) and by I/O
 * completions; every step is bounded (one scan slice, at most {@link #PASSES_PER_STEP_MAX} passes).
 *
 * <p>Thread rule: every method on the loop thread; callbacks run there.
 */
public final class Writeback {
    /** Passes one step may start: bounds a step even with a huge in-flight cap. */
    static final int PASSES_PER_STEP_MAX = 64;
    /** Backoff after an error: doubles from the minimum to the maximum, reset by a successful batch. */
    static final long BACKOFF_MIN_NS = 100_000_000L;
    static final long BACKOFF_MAX_NS = 30_000_000_000L;
    /**
     * Buffer bytes of the chunks in flight on an object store at most (checked before a chunk is planned, so one
     * chunk more may start): 32 whole 4 MiB chunks, the heap {@code cli.JvmSizing} counts. A partial chunk buffers
     * only its dirty pieces, so many more of them fit, up to {@code chunks_in_flight_max}: a sparse drain, where
     * every chunk costs the store a GET and then a PUT, needs more chunks in flight than a whole-chunk one to fill
     * the link (docs/WRITEBACK.md "Object stores").
     */
    public static final long CHUNK_BUFFER_BYTES_MAX = 128L << 20;
    /** Heap journaled write-back's logging may hold per volume (docs/WRITEBACK.md "Journaled write-back"). */
    public static final long BACKING_LOG_HEAP_BYTES_MAX = JournaledGroups.BUFFER_BYTES_MAX;

    private final EventLoop loop;
    private final Volume volume;
    private final VolumeIndex index;
    private final BlockDevice backing;
    private final CacheSpace space;
    private final MetadataJournal journal;
    private final double cacheShare;
    private final WritebackCounters counters = new WritebackCounters();
    private final InFlightKeys inFlight;
    private final DirtyAges ages;
    private final KeySources sources;
    private final RateController rate = new RateController();
    private final Pacer pacer = new Pacer();
    private final IdleDetector idle = new IdleDetector();
    private final QueueGovernor governor = new QueueGovernor();
    private final OverloadDetector overload = new OverloadDetector();
    private final CleanMarker cleaner;
    private final PassStarter starter;
    private WritebackSettings settings;
    private long backoffNs;
    private long backoffUntilNs;
    private Timer sampleTimer;
    private Timer rateTimer;
    private Timer wakeTimer;
    private long wakeAtNs = Long.MAX_VALUE;
    private boolean stopped = true;
    private final DrainJobs drains;
    private String lastError;
    private long lastErrorNs;
    /** Why writeback is held until a restart because the backing device changed under it, or null. */
    private String degraded;
    private final EpochOrder epochOrder;
    private final JournaledGroups journaled;

    /**
     * @param cacheShare the volume's share of the cache for the dirty target, in (0, 1] (bcache weighs by
     *     backing size)
     */
    public Writeback(EventLoop loop, Volume volume, CacheSpace space, MetadataJournal journal, double cacheShare,
                     WritebackSettings settings) {
        this(loop, volume, space, journal, cacheShare, settings, null);
    }

    /**
     * @param cacheShare the volume's share of the cache for the dirty target, in (0, 1]
     * @param backingLog the backing device's log (docs/FORMAT.md §4.4), or null if it has none: {@code
     *     ordering=journaled} needs one
     */
    public Writeback(EventLoop loop, Volume volume, CacheSpace space, MetadataJournal journal, double cacheShare,
                     WritebackSettings settings, BackingLogRegion backingLog) {
        this.loop = loop;
        this.volume = volume;
        this.index = volume.index();
        this.backing = volume.backingDevice();
        this.space = space;
        this.journal = journal;
        this.cacheShare = cacheShare;
        this.settings = Objects.requireNonNull(settings, "settings");
        this.inFlight = new InFlightKeys();
        this.ages = new DirtyAges(space.table(), loop.nowNs());
        this.sources = new KeySources(index, inFlight, ages, counters, () -> loop.execute(this::pump),
                backing.writeUnitBytes() > backing.logicalBlockBytes());
        this.epochOrder = new EpochOrder(loop, volume, sources);
        this.cleaner = new CleanMarker(backing, index, counters, this::settled);
        this.drains = new DrainJobs(loop, new DrainJobs.Engine() {
            @Override
            public long dirtySectors() {
                return index.extents().dirtySectors();
            }

            @Override
            public int keysInFlight() {
                return inFlight.size();
            }

            @Override
            public long sectorsCleaned() {
                return counters.sectorsCleaned();
            }

            @Override
            public double measuredBackingBytesPerSecond() {
                return Writeback.this.measuredBackingBytesPerSecond();
            }

            @Override
            public void runNow(long nowNs) {
                pacer.restart(nowNs);
                if (stopped) {
                    start();
                }
                loop.execute(Writeback.this::pump);
            }

            @Override
            public void resumeNow(long nowNs) {
                pacer.restart(nowNs);
                loop.execute(Writeback.this::pump);
            }

            @Override
            public void backToNormal() {
                sources.rearm();
                loop.execute(Writeback.this::pump);
            }

            @Override
            public void commit(IoCallback done) {
                journal.commit(done);
            }

            @Override
            public String heldUntilRestart() {
                return index.epochVoidFailure() != null ? index.epochVoidFailure() : degraded;
            }

            @Override
            public void checkBacking(Consumer<String> answer) {
                loop.offLoop(() -> {
                    String problem = backing.checkPresence(); // system calls: never on the loop thread
                    loop.execute(() -> {
                        if (problem != null) {
                            backingChanged(problem);
                        }
                        answer.accept(degraded);
                    });
                });
            }
        });
        this.journaled = new JournaledGroups(loop, volume, backingLog, cleaner, counters, new JournaledGroups.Engine() {
            @Override
            public boolean journaled() {
                return Writeback.this.settings.ordering() == WritebackOrdering.JOURNALED;
            }

            @Override
            public int keysInFlight() {
                return inFlight.size();
            }

            @Override
            public int keysInIo() {
                return starter.keysInIo();
            }

            @Override
            public boolean nothingToTake() {
                return sources.exhausted();
            }

            @Override
            public long groupBytesMax() {
                boolean fullSpeed = draining() || idle.idle() || epochOrder.waiters();
                if (fullSpeed) {
                    return Long.MAX_VALUE;
                }
                long sectors = (long) (rate.rateSectorsPerSecond() * (JournaledGroups.PACED_GROUP_NS / 1e9));
                return Math.max(1L << 20, sectors * BlockDevice.SECTOR_BYTES);
            }

            @Override
            public void restrictTo(long lastEpoch) {
                epochOrder.limitToGroup(lastEpoch);
            }

            @Override
            public void failed(String failure) {
                backOff(failure);
            }

            @Override
            public void pump() {
                loop.execute(Writeback.this::pump);
            }
        });
        checkOrdering(settings.ordering(), settings.ordering());
        PassIo passIo = new PassIo(loop, volume, counters, this::settings, this::runEnded, this::pump);
        this.starter = new PassStarter(volume, this::settings, inFlight, ages, sources, cleaner, governor, pacer, rate,
                drains, counters, passIo);
        if (!(cacheShare > 0 && cacheShare <= 1)) {
            throw new IllegalArgumentException("cacheShare must be in (0, 1]: " + cacheShare);
        }
    }

    /** Connects to the volume and starts the timers. */
    public void start() {
        Checks.onLoop(loop, "Writeback.start");
        if (!stopped) {
            return;
        }
        stopped = false;
        volume.setWritebackHooks(new EngineHooks(loop, inFlight, sources, ages, this::orderHoldSettled));
        epochOrder.apply(settings.ordering());
        sampleTimer = loop.schedule(settings.idleSampleNs(), this::sample);
        rateTimer = loop.schedule(settings.rateUpdateNs(), this::updateRate);
    }

    /** Stops starting passes and timers; {@code done} once nothing is in flight (shutdown). */
    public void stop(IoCallback done) {
        Checks.onLoop(loop, "Writeback.stop");
        stopped = true;
        for (Timer timer : new Timer[] {sampleTimer, rateTimer, wakeTimer}) {
            if (timer != null) {
                timer.cancel();
            }
        }
        wakeAtNs = Long.MAX_VALUE;
        awaitQuiet(done);
    }

    private void awaitQuiet(IoCallback done) {
        journaled.abandon(this::release); // a group being placed is replayed at the next open
        cleaner.maybeFlush(false, loop.nowNs());
        if (inFlight.size() == 0 && !journaled.ioInFlight()) {
            loop.execute(() -> done.complete(IoResult.OK));
        } else {
            loop.schedule(settings.idleSampleNs(), () -> awaitQuiet(done));
        }
    }

    /** The settings in force. */
    public WritebackSettings settings() {
        return settings;
    }

    /** Replaces the settings (live knobs); the next step uses them. */
    public void setSettings(WritebackSettings newSettings) {
        Checks.onLoop(loop, "Writeback.setSettings");
        Objects.requireNonNull(newSettings, "settings");
        checkOrdering(settings.ordering(), newSettings.ordering());
        this.settings = newSettings;
        sources.rearm();
        if (!stopped) {
            epochOrder.apply(newSettings.ordering());
        }
        loop.execute(this::pump);
    }

    /**
     * Refuses an ordering this volume cannot take now: {@code journaled} without a backing log, and leaving {@code
     * journaled} while a group or a replay is under way (the log may hold a group that must be in place before
     * writeback may write out of order).
     */
    private void checkOrdering(WritebackOrdering from, WritebackOrdering to) {
        if (to == WritebackOrdering.JOURNALED && !journaled.hasLog()) {
            throw new IllegalArgumentException("ordering=journaled needs a backing log, and this volume's backing"
                    + " device has none: format it with one (blockcache format --backing-log SIZE)");
        }
        if (from == WritebackOrdering.JOURNALED && to != from && journaled.busy()) {
            throw new IllegalArgumentException("this volume is writing a group through its backing log; ordering can"
                    + " leave journaled once it is done (now " + journaled.state().name().toLowerCase(Locale.ROOT)
                    + ")");
        }
    }

    /** Where journaled write-back's group is (tests). */
    JournaledGroups.State journaledState() {
        return journaled.state();
    }

    /**
     * Where journaled write-back stands on this volume's backing log ({@code idle}, {@code replaying}, {@code
     * logging}, {@code placing}, {@code finishing}), or null if the backing device has no log.
     */
    public String backingLogState() {
        return journaled.hasLog() ? journaled.state().name().toLowerCase(Locale.ROOT) : null;
    }

    /** Journaled write-back's groups committed so far. */
    public long logGroups() {
        return journaled.groups();
    }

    /**
     * A fault point for the simulator (FoundationDB style; docs/TESTING.md): with {@code on}, passes ignore epoch
     * boundaries although the knob says {@code epochs} — the planted bug the fuzz's prefix oracle must catch. Never
     * set outside tests.
     */
    public void setFaultIgnoreEpochs(boolean on) {
        Checks.onLoop(loop, "Writeback.setFaultIgnoreEpochs");
        epochOrder.setFaultIgnoreEpochs(on);
        if (!stopped) {
            epochOrder.apply(settings.ordering());
        }
    }

    /** Counters (any thread). */
    public WritebackCounters counters() {
        return counters;
    }

    /** The terms of the last rate update (bcache writeback_rate_debug). */
    public RateTerms rateTerms() {
        return rate.last();
    }

    /** True if the front end was idle at the last sample (writeback then runs at full speed). */
    public boolean frontEndIdle() {
        return idle.idle();
    }

    /** The backing bandwidth the queue governor measured, bytes per second. */
    public double measuredBackingBytesPerSecond() {
        return governor.bandwidthSectorsPerSecond() * BlockDevice.SECTOR_BYTES;
    }

    /** Keys in flight, from pass start until clean marking. */
    public int keysInFlight() {
        return inFlight.size();
    }

    /** The last writeback failure (a cache read, backing write or backing flush), or null if none yet. */
    public String lastError() {
        return lastError;
    }

    /** Loop time of {@link #lastError}, in nanoseconds (0 if none). */
    public long lastErrorNs() {
        return lastErrorNs;
    }

    /**
     * The backing device changed under the volume ({@link BlockDevice#checkPresence}: its file deleted, replaced or
     * truncated while open): writeback stops for good — no knob restarts it, since anything written there is lost —
     * an active drain fails naming the file, later drains fail at once, requests waiting for older epochs are
     * refused, and the dirty data stays dirty in the cache. Only a restart on a restored file ends it. Idempotent:
     * the first reason is kept.
     *
     * @param problem the device's own line ("file PATH was deleted while open ...")
     */
    public void backingChanged(String problem) {
        Checks.onLoop(loop, "Writeback.backingChanged");
        if (degraded != null) {
            return;
        }
        degraded = "backing " + problem + "; restore it (or its replacement) at that path and restart";
        lastError = degraded;
        lastErrorNs = loop.nowNs();
        drains.fail(DrainJobs.heldReason(degraded));
        volume.failEpochWaitersFromNow("writeback " + degraded);
    }

    /** Why writeback of this volume is held until a restart (its backing device changed under it), or null. */
    public String degraded() {
        return degraded;
    }

    /** Dirty bytes of this volume now. */
    public long dirtyBytes() {
        return index.extents().dirtySectors() * BlockDevice.SECTOR_BYTES;
    }

    /**
     * Writes everything back now at full speed (detach, shutdown): {@link #drain(DrainLimits, Consumer, IoCallback)}
     * with no limits.
     */
    public void drain(Consumer<DrainProgress> progress, IoCallback done) {
        Checks.onLoop(loop, "Writeback.drain");
        drain(DrainLimits.NONE, progress, done);
    }

    /**
     * Starts a drain job (docs/WRITEBACK.md, "Drain jobs"): writes everything back now, at full speed or within
     * {@code limits}; reports progress every sample and calls {@code done} once nothing is dirty and the clean
     * markings are committed to the journal (OK), or when the job fails or is cancelled (an error). A request
     * without limits while a job is active joins it (its {@code done} is called with the first one's).
     *
     * @return the job (the one joined, when joining)
     * @throws DrainRefused if the deadline cannot be met: the rate it needs is in the message
     * @throws IllegalStateException if a job with other limits is active
     */
    public DrainJob drain(DrainLimits limits, Consumer<DrainProgress> progress, IoCallback done) {
        Checks.onLoop(loop, "Writeback.drain");
        return drains.drain(limits, progress, done);
    }

    /**
     * Takes up a job accepted before a restart (the caller kept its limits): no deadline check, since a job the
     * operator was promised goes on and reports a deadline at risk instead; {@code paused} restores a paused one.
     */
    public DrainJob restoreDrain(DrainLimits limits, boolean paused, Consumer<DrainProgress> progress,
                                 IoCallback done) {
        Checks.onLoop(loop, "Writeback.restoreDrain");
        return drains.restore(limits, paused, progress, done);
    }

    /** The latest drain job in any state, or null if none was started since open. */
    public DrainJob drainJob() {
        return drains.latest();
    }

    /**
     * Holds every pass of the volume until {@link #resumeDrain}; idempotent.
     *
     * @throws DrainConflict if no job is active, or the job is {@linkplain DrainJob#finishing finishing}
     */
    public void pauseDrain() {
        Checks.onLoop(loop, "Writeback.pauseDrain");
        drains.pause();
    }

    /**
     * Lets a paused drain go on; idempotent (a finishing job included).
     *
     * @throws DrainConflict if no job is active
     */
    public void resumeDrain() {
        Checks.onLoop(loop, "Writeback.resumeDrain");
        drains.resume();
    }

    /**
     * Stops the drain: writeback returns to its normal policy (the knobs), dirty data stays dirty, passes in flight
     * finish. The job's callers hear an error saying so.
     *
     * @throws DrainConflict if no job is active, or the job is {@linkplain DrainJob#finishing finishing}
     */
    public void cancelDrain() {
        Checks.onLoop(loop, "Writeback.cancelDrain");
        drains.cancel();
    }

    private boolean draining() {
        return drains.running();
    }

    private void sample() {
        long nowNs = loop.nowNs();
        long idleAfterNs = settings.policy() == WritebackPolicy.CLASSIC ? settings.classicIdleNs()
                : settings.idleSampleNs();
        boolean wasIdle = idle.idle();
        idle.sample(frontEndRequests(), nowNs, idleAfterNs);
        if (wasIdle != idle.idle()) {
            sources.rearm();
        }
        governor.sample(backing.counters(), nowNs);
        long target = dirtyTargetSectors();
        if (overload.overloaded() != overload.sample(index.extents().dirtySectors(), target, earlySectors(target))) {
            sources.rearm();
        }
        sources.sample(nowNs, settings.dirtyExpireNs());
        cleaner.maybeFlush(starter.keysInIo() > 0, nowNs);
        reportDrain(false);
        pump();
        sampleTimer = loop.schedule(settings.idleSampleNs(), this::sample);
    }

    /** bcache's dirty target: {@code percent} of this volume's share of the cache, in sectors. */
    private long dirtyTargetSectors() {
        long cacheSectors = (long) space.table().bucketCount() * space.table().bucketSectors();
        return (long) (cacheSectors * cacheShare * settings.percent() / 100.0);
    }

    /**
     * The early mark of sustained overload: half way from the dirty target to the throttle's start (the same share of
     * this volume's part of the cache), so writeback runs at full speed before the throttle holds writers.
     */
    private long earlySectors(long targetSectors) {
        int throttleStart = volume.bypassSettings().throttleStartPercent();
        if (throttleStart >= 100) {
            return Long.MAX_VALUE;
        }
        long cacheSectors = (long) space.table().bucketCount() * space.table().bucketSectors();
        long startSectors = (long) (cacheSectors * cacheShare * throttleStart / 100.0);
        return startSectors <= targetSectors ? Long.MAX_VALUE : targetSectors + (startSectors - targetSectors) / 2;
    }

    /**
     * True if a busy front end outruns the PI rate ({@link OverloadDetector}): a modern engine then writes back at
     * full speed, the backing queue kept by the queue governor. Classic keeps bcache's PI rate throughout.
     */
    private boolean sustainedOverload() {
        return settings.policy() == WritebackPolicy.MODERN && overload.overloaded();
    }

    /** True if the last sample found the front end outrunning the PI rate (docs/WRITEBACK.md "Sustained writes"). */
    public boolean overloaded() {
        return sustainedOverload();
    }

    private void updateRate() {
        long target = dirtyTargetSectors();
        overload.rateUpdate(index.extents().dirtySectors(), target);
        // In use as bcache's gc_stats.in_use counts it: buckets holding dirty data. Clean buckets are reclaimable;
        // counting them fired the boost in a cache full of clean data and wrote everything back at once
        // (docs/bench-history/nbd.md "2026-12-03: a machine that pages out idle memory").
        RateController.Space picture = new RateController.Space((int) volume.cacheInUsePercent(),
                volume.cacheInUseBuckets(), space.table().bucketSectors());
        rate.update(index.extents().dirtySectors(), target, pacer.keepingUp(loop.nowNs()), picture, settings);
        rateTimer = loop.schedule(settings.rateUpdateNs(), this::updateRate);
    }

    private long frontEndRequests() {
        DeviceCounters c = volume.counters();
        long total = 0;
        for (DeviceOp op : DeviceOp.values()) {
            total += c.submitted(op);
        }
        return total;
    }

    /** Lowers the byte bound on chunk buffers (tests: a small store cannot hold 128 MiB of chunks in flight). */
    void chunkBufferBytesMax(long bytes) {
        starter.chunkBufferBytesMax(bytes);
    }

    /** Starts as many passes as the limits allow now. */
    void pump() {
        // A drain overrides the pause, as bcache's detach overrides writeback_running=0: else it would never end.
        // A paused drain job holds every pass: the operator asked for the backing device back.
        // Requests waiting for older epochs override both too: without writeback they would wait forever.
        boolean waiters = epochOrder.waiters();
        if (degraded != null) {
            return; // nothing may reach a backing file that changed under us, whatever the knobs or a drain say
        }
        if (stopped || (!settings.running() && !draining() && !waiters) || (drains.paused() && !waiters)) {
            return;
        }
        if (epochOrder.holdsPasses()) {
            return; // pumped again once the volume's hold ends (orderHoldSettled)
        }
        if (journaled.holdsPasses() || journaled.abandoning()) {
            return; // a replay, or a group being logged or finished: pumped again when that step ends
        }
        long nowNs = loop.nowNs();
        if (nowNs < backoffUntilNs) {
            wakeAt(backoffUntilNs);
            return;
        }
        for (int i = 0; i < PASSES_PER_STEP_MAX; i++) {
            boolean fullSpeed = draining() || idle.idle() || epochOrder.waiters() || sustainedOverload();
            // The scan may rest after a sweep only while writeback is not behind: above the dirty target (a full
            // cache waiting for space, say) a rest would hold the very writes that free it (docs/WRITEBACK.md).
            boolean scanMayRest = !fullSpeed && index.extents().dirtySectors() <= dirtyTargetSectors();
            PassStarter.Outcome outcome = starter.start(nowNs, fullSpeed, scanMayRest);
            if (outcome == PassStarter.Outcome.WAIT) {
                wakeAt(starter.nextStartNs());
            }
            if (outcome != PassStarter.Outcome.STARTED) {
                journaled.progress(); // a group may be done: nothing of it left to take
                return;
            }
        }
    }

    /** A run's keys left I/O: written ones wait for the clean batch's flush, failed ones stay dirty. */
    private void runEnded(List<DirtyKey> keys, String failure) {
        starter.keysLeftIo(keys.size());
        if (failure == null) {
            cleaner.written(keys, loop.nowNs());
        } else {
            journaled.abandon(this::release); // before giveUp, which pumps: no more passes for that group
            giveUp(keys, failure);
        }
        cleaner.maybeFlush(starter.keysInIo() > 0, loop.nowNs());
        journaled.progress();
    }

    /** Keys of an abandoned journaled group: written in place but not marked clean, so dirty still. */
    private void release(List<DirtyKey> keys) {
        for (DirtyKey key : keys) {
            inFlight.remove(key);
        }
        sources.rearm();
        loop.execute(this::pump);
    }

    /**
     * Keys whose writeback failed stay dirty; writeback backs off before it tries again. A drain in progress
     * ends at once with the error: an operator waiting for "clean and durable" must hear that it cannot be
     * reached now, not wait through retries that may never succeed (a backing device whose flush failed stays
     * failed until a restart, see {@code StickyFlushDevice}).
     */
    private void giveUp(List<DirtyKey> keys, String failure) {
        for (DirtyKey key : keys) {
            inFlight.remove(key);
        }
        backOff(failure);
    }

    /** Shows {@code failure}, ends a drain with it, refuses held requests, and backs off before the next try. */
    private void backOff(String failure) {
        lastError = failure;
        lastErrorNs = loop.nowNs();
        drains.fail("drain stopped: writeback " + failure + "; the dirty data stays in the cache");
        epochOrder.writebackFailed(failure);
        backoffNs = backoffNs == 0 ? BACKOFF_MIN_NS : Math.min(BACKOFF_MAX_NS, backoffNs * 2);
        backoffUntilNs = loop.nowNs() + backoffNs;
        sources.rearm();
        loop.execute(this::pump); // wakes at the end of the backoff
    }

    /**
     * A durable step the volume held its order for is done (null: passes may start) or failed: writeback of this
     * volume stays held (until a restart for the journal's void record; until a retry succeeds for the damage map),
     * visibly (the error; a drain ends with it).
     */
    private void orderHoldSettled(String failure) {
        if (failure != null) {
            lastError = failure;
            lastErrorNs = loop.nowNs();
            drains.fail(DrainJobs.heldReason(failure));
        }
        loop.execute(this::pump);
    }

    private void settled(List<DirtyKey> keys, String failure) {
        journaled.settled(failure); // a group's end: passes go back to the volume's order
        if (failure == null) {
            for (DirtyKey key : keys) {
                inFlight.remove(key);
            }
            backoffNs = 0;
            epochOrder.batchSettled();
            volume.requestDamageSweep(); // clean and flushed: its regions may leave the damage map, lazily
        } else {
            giveUp(keys, failure);
        }
        cleaner.maybeFlush(starter.keysInIo() > 0, loop.nowNs());
        journaled.progress();
        reportDrain(true);
        pump();
    }

    private void wakeAt(long atNs) {
        if (atNs >= wakeAtNs && wakeTimer != null) {
            return;
        }
        if (wakeTimer != null) {
            wakeTimer.cancel();
        }
        wakeAtNs = atNs;
        wakeTimer = loop.schedule(Math.max(0, atNs - loop.nowNs()), () -> {
            wakeTimer = null;
            wakeAtNs = Long.MAX_VALUE;
            pump();
        });
    }

    private void reportDrain(boolean onlyIfDone) {
        drains.report(onlyIfDone);
    }
}

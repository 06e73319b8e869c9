package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import java.util.List;
import java.util.function.Supplier;

/**
 * Starts one writeback pass at a time within the limits of the moment (docs/WRITEBACK.md, docs/ARCHITECTURE.md
 * §4.4): the in-flight cap, the clean batch waiting for its flush, the queue governor at full speed, the pacer under
 * the PI rate, and a ceiling (the {@code rate_max} knob or a drain job's). On an object store a modern pass is one
 * chunk ({@link ChunkPlanner}). It owns the count of keys and chunks in I/O; {@link Writeback} decides when to call
 * it and what happens to the keys once their I/O ended ({@link #keysLeftIo}).
 *
 * <p>Thread rule: the loop thread.
 */
final class PassStarter {
    /** Keys written and waiting for their flush before no new pass starts: bounds the clean batch. */
    static final int CLEAN_PENDING_KEYS_MAX = 4 * CleanMarker.BATCH_KEYS_MAX;
    /**
     * A pass under a rate ceiling carries at most this much of the ceiling: the pacer looks at most 2.5 s ahead
     * ({@link Pacer#AHEAD_MAX_NS}), so a larger pass (an idle pass is up to 80000 sectors, 39 s at 1 MiB/s) would
     * be clipped and the ceiling would not hold.
     */
    static final long CEILING_PASS_NS = 500_000_000L;

    private final Volume volume;
    private final VolumeIndex index;
    private final BlockDevice backing;
    private final Supplier<WritebackSettings> settings;
    private final InFlightKeys inFlight;
    private final KeySources sources;
    private final CleanMarker cleaner;
    private final QueueGovernor governor;
    private final Pacer pacer;
    private final RateController rate;
    private final DrainJobs drains;
    private final WritebackCounters counters;
    private final PassIo passIo;
    private final PassPicker picker = new PassPicker();
    private final ChunkPlanner chunkPlanner;
    // Object stores (docs/WRITEBACK.md "Object stores"): the backing device's write unit when it is larger than its
    // logical block, else 0 (a disk: the chunk path is off).
    private final int chunkBytes;
    private int keysInIo;
    private int chunksInIo;
    private long chunkBufferBytesInIo;
    /** {@link Writeback#CHUNK_BUFFER_BYTES_MAX}; smaller in tests, whose stores are small. */
    private long chunkBufferBytesMax = Writeback.CHUNK_BUFFER_BYTES_MAX;

    /**
     * @param settings the settings in force at each call (live knobs)
     * @param passIo the I/O of the passes started; it reports each run's end to the engine, which then calls
     *     {@link #keysLeftIo}
     */
    PassStarter(Volume volume, Supplier<WritebackSettings> settings, InFlightKeys inFlight, DirtyAges ages,
                KeySources sources, CleanMarker cleaner, QueueGovernor governor, Pacer pacer, RateController rate,
                DrainJobs drains, WritebackCounters counters, PassIo passIo) {
        this.volume = volume;
        this.index = volume.index();
        this.backing = volume.backingDevice();
        this.settings = settings;
        this.inFlight = inFlight;
        this.sources = sources;
        this.cleaner = cleaner;
        this.governor = governor;
        this.pacer = pacer;
        this.rate = rate;
        this.drains = drains;
        this.counters = counters;
        this.passIo = passIo;
        this.chunkPlanner = new ChunkPlanner(volume, inFlight, ages);
        this.chunkBytes = backing.writeUnitBytes() > backing.logicalBlockBytes() ? backing.writeUnitBytes() : 0;
    }

    /** Keys read or written by passes now (from pass start until their run ended). */
    int keysInIo() {
        return keysInIo;
    }

    /** A run's {@code keys} left I/O (written or failed). */
    void keysLeftIo(int keys) {
        keysInIo -= keys;
    }

    /** Lowers the byte bound on chunk buffers (tests: a small store cannot hold 128 MiB of chunks in flight). */
    void chunkBufferBytesMax(long bytes) {
        Checks.require(bytes > 0 && bytes <= Writeback.CHUNK_BUFFER_BYTES_MAX,
                "chunk buffer bound must be in (0, %s]: %s", Writeback.CHUNK_BUFFER_BYTES_MAX, bytes);
        chunkBufferBytesMax = bytes;
    }

    /** What a {@link #start} call did: started a pass, found nothing to start for now, or has to wait for a time. */
    enum Outcome { STARTED, NONE, WAIT }

    /**
     * Starts one pass if the limits allow it now.
     *
     * @param fullSpeed writeback runs unpaced (idle front end, a drain, requests waiting for older epochs)
     * @param scanMayRest the dirty scan may rest after a sweep of the whole index ({@code rescan_delay_ms}): paced
     *     and not behind the dirty target
     * @return {@link Outcome#STARTED} (a pass started, or a key was dropped while more may be takeable: call again),
     *     {@link Outcome#WAIT} (the pacer holds the next pass until {@link #nextStartNs}), or {@link Outcome#NONE}
     *     (nothing more now: a completion or the next sample looks again)
     */
    Outcome start(long nowNs, boolean fullSpeed, boolean scanMayRest) {
        WritebackSettings now = settings.get();
        boolean modern = now.policy() == WritebackPolicy.MODERN;
        boolean chunked = modern && chunkBytes > 0;
        int capacity = !chunked ? now.ioInFlightMax() - keysInIo
                : chunkBufferBytesInIo >= chunkBufferBytesMax ? 0 : now.chunksInFlightMax() - chunksInIo;
        if (capacity <= 0 || cleaner.pendingKeysBlocking() >= CLEAN_PENDING_KEYS_MAX) {
            return Outcome.NONE;
        }
        DirtyScanner source = sources.choose(nowNs, now, scanMayRest);
        if (source == null) {
            return Outcome.NONE;
        }
        boolean expired = sources.expired(source);
        boolean paced = !expired && !fullSpeed;
        // The queue governor keeps a disk's queue short so that reads do not wait behind writeback; an object store
        // serves requests side by side, and there the bound is the chunks in flight.
        if (fullSpeed && modern && !expired && !chunked
                && !governor.mayIssue(backing.counters(), now.backingIoSectorsMax())) {
            return Outcome.NONE; // the next sample (or a completion) looks again
        }
        long ceilingRate = ceilingSectorsPerSecond(now, expired, nowNs);
        boolean ceiling = ceilingRate > 0;
        if ((paced || ceiling) && !pacer.mayStart(nowNs)) {
            return Outcome.WAIT;
        }
        WritebackOrder order = PassPicker.resolve(now.order(), source, now);
        if (chunked) {
            return startChunk(source, order, nowNs, paced, ceiling ? ceilingRate : 0, expired);
        }
        boolean large = fullSpeed && modern;
        int passKeys = large ? now.keysPerPassIdle() : now.keysPerPassBusy();
        if (modern && capacity < roomForAPass(passKeys, now.ioInFlightMax())) {
            return Outcome.NONE; // the next run that ends frees more: see roomForAPass
        }
        int keysMax = Math.min(capacity, passKeys);
        int sectorsMax = large ? now.sectorsPerPassIdle() : now.sectorsPerPassBusy();
        if (ceiling) {
            sectorsMax = (int) Math.min(sectorsMax, Math.max(1, ceilingRate * CEILING_PASS_NS / 1_000_000_000L));
        }
        List<DirtyKey> keys = picker.pick(source, now.policy(), order, keysMax, sectorsMax, index, inFlight,
                volume, sources.eligible(), counters);
        if (keys.isEmpty()) {
            return source.isEmpty() ? Outcome.NONE : Outcome.STARTED;
        }
        long sectors = 0;
        for (DirtyKey key : keys) {
            inFlight.add(key);
            sectors += key.lengthSectors();
        }
        if (paced || ceiling) {
            pacer.spent(sectors, paced ? rate.rateSectorsPerSecond() : ceilingRate, nowNs);
        }
        taken(keys.size(), expired);
        passIo.start(keys);
        return Outcome.STARTED;
    }

    /**
     * The free in-flight capacity (keys) a modern pass waits for: a whole pass, or half the cap when a pass is
     * larger. Why: a pass clipped to the capacity free at the moment takes one key when one key's run just ended,
     * and its run ends alone again later, so once 64 one-key runs are in flight (a busy spell over a slow disk
     * leaves that) writeback stays at one key per pass for good. Measured over an NBD disk answering one request at
     * a time in 4 ms: a drain of 16 MiB of 4 KiB keys took 15.4 s in 3,596 passes (docs/bench-history/writeback.md
     * "2026-12-02: a modern pass waits"). bcache's read_dirty() never clips: it plans the pass first, then waits on its
     * in_flight semaphore key by key. Classic passes keep being clipped, as before (its comparisons stay as measured).
     */
    static int roomForAPass(int passKeys, int ioInFlightMax) {
        return Math.max(1, Math.min(passKeys, (ioInFlightMax + 1) / 2));
    }

    /** When the pacer lets the next paced pass start (after {@link Outcome#WAIT}), loop nanoseconds. */
    long nextStartNs() {
        return pacer.nextNs();
    }

    /**
     * One pass on an object store: the whole chunk around the next key ({@link ChunkPlanner}), paced by its dirty
     * sectors like any pass. A key whose chunk has nothing takeable now is dropped (a later scan finds it again).
     */
    private Outcome startChunk(DirtyScanner source, WritebackOrder order, long nowNs, boolean paced,
                               long ceilingRate, boolean expired) {
        DirtyKey seed = order == WritebackOrder.FIFO ? source.pollOldest() : source.pollLowest();
        if (seed == null) {
            return Outcome.NONE;
        }
        ChunkPlanner.Plan plan = chunkPlanner.plan(seed, chunkBytes, sources.eligible());
        if (plan == null) {
            counters.keysDropped.incrementAndGet();
            return source.isEmpty() ? Outcome.NONE : Outcome.STARTED;
        }
        sources.taken(plan.startSector(), plan.lengthSectors());
        for (DirtyKey key : plan.keys()) {
            inFlight.add(key);
        }
        if (paced || ceilingRate > 0) {
            pacer.spent(plan.keySectors(), paced ? rate.rateSectorsPerSecond() : ceilingRate, nowNs);
        }
        (plan.whole() ? counters.chunksWhole : counters.chunksPartial).incrementAndGet();
        taken(plan.keys().size(), expired);
        chunksInIo++;
        long bufferBytes = (plan.whole() ? plan.lengthSectors() : plan.keySectors()) * (long) BlockDevice.SECTOR_BYTES;
        chunkBufferBytesInIo += bufferBytes;
        WritebackCounters.raisePeak(counters.chunksInFlightPeak, chunksInIo);
        passIo.startChunk(plan, () -> {
            chunksInIo--;
            chunkBufferBytesInIo -= bufferBytes;
        });
        return Outcome.STARTED;
    }

    private void taken(int keys, boolean expired) {
        counters.passes.incrementAndGet();
        counters.keysTaken.addAndGet(keys);
        if (expired) {
            counters.expiredKeysTaken.addAndGet(keys);
        }
        keysInIo += keys;
        WritebackCounters.raisePeak(counters.keysInFlightPeak, keysInIo);
    }

    /**
     * The ceiling on this pass, sectors per second; 0 = none. The knob {@code rate_max} holds except for expired
     * keys (as before drain jobs); a running drain job's own ceiling (its cap, or what its deadline needs) holds
     * for every key, expired ones included, or an hours-long capped drain would run unpaced once its data aged.
     */
    private long ceilingSectorsPerSecond(WritebackSettings now, boolean expired, long nowNs) {
        long knob = expired ? 0 : now.rateMaxSectorsPerSecond();
        long drainCeiling = drains.ceilingSectorsPerSecond(index.extents().dirtySectors(), nowNs);
        if (knob == 0 || drainCeiling == 0) {
            return Math.max(knob, drainCeiling);
        }
        return Math.min(knob, drainCeiling);
    }
}

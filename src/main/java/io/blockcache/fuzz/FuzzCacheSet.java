package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Knob;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import io.blockcache.sim.SpaceBudget;
import io.blockcache.sim.SimDevice;
import io.blockcache.sim.SmallDevices;
import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The cache set a fuzz seed runs: a small simulated SSD as the cache in front of one simulated disk (or SSD)
 * per volume, every device with a volatile write cache. It formats, opens (then applies the seed's live knobs,
 * as {@code serve} applies its config), loses power, shuts down cleanly, and adds up what each incarnation did
 * (checkpoints, evictions, journal bytes) before it goes. Thread rule: the scenario's thread.
 */
final class FuzzCacheSet {
    /** Each backing device: the volume plus the 1 MiB header area. */
    private static final long BACKING_HEADER_BYTES = 1L << 20;

    private final SimLoop loop;
    private final FuzzSetup setup;
    private final Prng ids;
    private final SimDevice cacheDevice;
    private final FaultyDevice faultyCache;
    /** Whether the seed's faults are being injected now ({@link #armFaults}). */
    private boolean faultsArmed;
    private final List<FaultyDevice> faultyBackings = new ArrayList<>();
    private final List<SimDevice> allDevices = new ArrayList<>();
    private final Prng faultFate;
    private final Prng mediaFate;
    private final MediaFaults mediaFaults = new MediaFaults();
    private final FuzzTrace trace;
    private final List<SimDevice> backingDevices = new ArrayList<>();
    // Per volume: its damage map's file (a device of its own, damage-map=file), or null with the map on the backing.
    private final List<SimDevice> mapDevices = new ArrayList<>();
    // Per volume: what the engine talks to for its map file: the file's device, or a fault injector on it; null with
    // the map on the backing.
    private final List<BlockDevice> mapViews = new ArrayList<>();
    private final List<FaultyDevice> faultyMaps = new ArrayList<>();
    // The map files' fault stream, from a seed of its own (null: map files get no faults, as before 2026-12-02).
    private final Prng mapFate;
    // What the engine talks to: the backing devices themselves, or a tracing wrapper for a watched sector.
    private final List<BlockDevice> backingViews = new ArrayList<>();
    private CacheSet set;
    private boolean plantIgnoreEpochs;
    private boolean plantForgetRecoveredEpochs;
    private long checkpoints;
    private long evictedBuckets;
    private long compactedBuckets;
    private long journalBytes;
    private long checksumCatches;
    private long chunkPasses;
    private long logGroups;
    // The object stores' latency draws: a stream of its own, from the seed (null: no volume is on an object store).
    private final Prng storeLatency;

    /**
     * @param mapFaultSeed the seed of the map files' fault stream, or null for no faults on map files (the generator
     *     before 2026-12-02, which some pinned seeds were found with)
     * @param storeLatencySeed the seed of the object stores' latency stream (used only by volumes the setup puts on
     *     an object store)
     */
    /** Where volume {@code v}'s data starts on its backing device: after the header's MiB and its log, if any. */
    long dataOffsetBytes(int v) {
        return BACKING_HEADER_BYTES + setup.logBytes().get(v);
    }

    FuzzCacheSet(SimLoop loop, FuzzSetup setup, Prng ids, long mediaSeed, Long mapFaultSeed, long storeLatencySeed,
                 FuzzWatch watch, FuzzTrace trace, UnaryOperator<BlockDevice> backingSabotage) {
        this.loop = loop;
        this.storeLatency = new Prng(storeLatencySeed);
        this.mapFate = mapFaultSeed == null ? null : new Prng(mapFaultSeed);
        this.setup = setup;
        this.ids = ids;
        this.faultFate = ids.split();
        // Its own stream, from the seed, so that media faults do not shift any other draw of the run.
        this.mediaFate = new Prng(mediaSeed);
        this.trace = trace;
        this.cacheDevice = SmallDevices.ssd(loop, setup.cacheDeviceBytes());
        this.faultyCache = new FaultyDevice(cacheDevice, loop, FaultPlan.none(), faultFate.split());
        allDevices.add(cacheDevice);
        for (int v = 0; v < setup.volumeCount(); v++) {
            long bytes = setup.rangeBytes() + BACKING_HEADER_BYTES + setup.logBytes().get(v);
            SimDevice device = setup.objectStore().get(v) ? SmallDevices.objectStore(loop, bytes, storeLatency.split())
                    : setup.hddBacking() ? SmallDevices.hdd(loop, bytes) : SmallDevices.ssd(loop, bytes);
            backingDevices.add(device);
            allDevices.add(device);
            FaultyDevice faulty = new FaultyDevice(device, loop, FaultPlan.none(), faultFate.split());
            faultyBackings.add(faulty);
            BlockDevice view = backingSabotage.apply(faulty);
            long dataOffset = BACKING_HEADER_BYTES + setup.logBytes().get(v);
            backingViews.add(watch != null && watch.volume() == v ? new TracingDevice(view, "backing",
                    dataOffset, dataOffset + watch.sector() * BlockDevice.SECTOR_BYTES,
                    BlockDevice.SECTOR_BYTES, trace) : view);
            // The map file lives in the data directory, on a disk of its own with a volatile cache. Its faults (failed
            // requests and flushes, at the backing device's rates) come from a stream of their own, so that they
            // shift no draw of any other device.
            SimDevice map = setup.mapInFile().get(v) ? SmallDevices.ssd(loop, BACKING_HEADER_BYTES) : null;
            mapDevices.add(map);
            FaultyDevice faultyMap = map == null || mapFate == null ? null
                    : new FaultyDevice(map, loop, FaultPlan.none(), mapFate.split());
            faultyMaps.add(faultyMap);
            mapViews.add(faultyMap != null ? faultyMap : map);
            if (map != null) {
                allDevices.add(map);
            }
        }
    }

    /** Formats the devices and opens the cache set. */
    void start(IoCallback done) {
        CacheSet.format(loop, faultyCache, specs(), setup.options(), ids, fraction -> { }, formatted -> {
            if (!formatted.isOk()) {
                done.complete(IoResult.error(IoStatus.IO_ERROR, "format failed: " + formatted.error()));
                return;
            }
            open(done);
        });
    }

    /**
     * After a clean shutdown (before the power cut that follows it), with faults on: plans media damage to clean
     * cached data, applied by the next {@link #open} (see {@link MediaFaults}).
     */
    void planMediaFaults() {
        if (setup.faults().any() && set != null) {
            mediaFaults.plan(set, mediaFate);
        }
    }

    /** Cache reads whose CRC32C failed (and were served from the backing device, or failed) so far. */
    long checksumCatches() {
        return checksumCatches + (set == null ? 0 : checksumErrorsNow());
    }

    private long checksumErrorsNow() {
        long total = 0;
        for (io.blockcache.volume.Volume volume : set.volumes()) {
            total += volume.stats().checksumErrors();
        }
        return total;
    }

    /** Blocks of cached data damaged so far. */
    long mediaFaultsApplied() {
        return mediaFaults.applied();
    }

    /** Opens (recovers) the cache set on the devices as they are, then applies the seed's knobs. */
    void open(IoCallback done) {
        mediaFaults.apply(cacheDevice, trace, damaged -> openNow(done));
    }

    private void openNow(IoCallback done) {
        CacheSet.open(loop, faultyCache, specs(), setup.options(), opened -> {
            if (!opened.isOk()) {
                done.complete(IoResult.error(IoStatus.IO_ERROR, "open failed: " + opened.error()));
                return;
            }
            set = opened.value();
            if (plantForgetRecoveredEpochs) {
                set.volumes().forEach(volume -> volume.index().epochs().changedUntracked());
            }
            for (Map.Entry<String, String> knob : setup.knobs().entrySet()) {
                if (!ofDetachedVolume(knob.getKey())) {
                    setKnob(knob.getKey(), knob.getValue());
                }
            }
            if (plantIgnoreEpochs) {
                set.writebacks().forEach(writeback -> writeback.setFaultIgnoreEpochs(true));
            }
            done.complete(IoResult.OK);
        });
    }

    /**
     * Fills the file system under the cache file, or frees it again, with the seed's {@link
     * FuzzFaults#cacheDiskFullChance} (only while faults are armed). Full means: the blocks the file has now may be
     * overwritten, and 0..3 buckets' worth of new ones may still be allocated; every write past that gets ENOSPC
     * until space comes back (here, or when the faults are disarmed: a power cycle, the final segment).
     */
    void maybeToggleCacheDiskFull(Prng fate) {
        if (!faultsArmed || setup.faults().cacheDiskFullChance() == 0
                || !fate.chance(setup.faults().cacheDiskFullChance())) {
            return;
        }
        SpaceBudget space = faultyCache.space();
        if (space.allocatedBytesMax() == SpaceBudget.UNLIMITED) {
            long margin = (long) fate.nextInt(4) * setup.options().bucketSizeBytes();
            space.setAllocatedBytesMax(space.allocatedBytes() + margin);
            trace.add("disk full: the cache file may grow by " + margin + " bytes more");
        } else {
            space.setAllocatedBytesMax(SpaceBudget.UNLIMITED);
            trace.add("disk full: space again");
        }
    }

    /** Cache-device writes refused with ENOSPC so far ({@link #maybeToggleCacheDiskFull}). */
    long diskFullRefusals() {
        return faultyCache.space().refusedWrites();
    }

    /** Starts (or stops, {@code armed} false) injecting the seed's faults. */
    void armFaults(boolean armed) {
        faultsArmed = armed;
        if (!armed) {
            faultyCache.space().setAllocatedBytesMax(SpaceBudget.UNLIMITED);
        }
        FuzzFaults f = armed ? setup.faults() : FuzzFaults.none();
        faultyCache.setPlan(FaultPlan.none().withFailProbability(f.cacheRequestFailProbability()));
        cacheDevice.setFlushFailures(faultFate, f.cacheFlushFailProbability());
        for (int v = 0; v < backingDevices.size(); v++) {
            faultyBackings.get(v).setPlan(FaultPlan.none().withFailProbability(f.backingRequestFailProbability()));
            backingDevices.get(v).setFlushFailures(faultFate, f.backingFlushFailProbability());
            if (faultyMaps.get(v) != null) {
                faultyMaps.get(v).setPlan(FaultPlan.none().withFailProbability(f.backingRequestFailProbability()));
                mapDevices.get(v).setFlushFailures(mapFate, f.backingFlushFailProbability());
            }
        }
    }

    /** Faults injected so far: failed requests and failed flushes. */
    long faultsInjected() {
        long total = faultyCache.injected() + mediaFaults.applied();
        for (FaultyDevice faulty : faultyBackings) {
            total += faulty.injected();
        }
        for (FaultyDevice faulty : faultyMaps) {
            total += faulty == null ? 0 : faulty.injected();
        }
        for (SimDevice device : allDevices) {
            total += device.flushesFailed();
        }
        return total;
    }

    /** Power cut: the loop forgets every pending event and each device keeps only a crash image. */
    void crash(Prng fate) {
        armFaults(false);
        retire();
        loop.discardPending();
        cacheDevice.crash(fate.split());
        for (SimDevice device : backingDevices) {
            device.crash(fate.split());
        }
        for (SimDevice map : mapDevices) {
            if (map != null) {
                map.crash(fate.split()); // after every other device: their fates stay as they were
            }
        }
    }

    /** Power back on, before {@link #open}: the devices, and the counters of the fault injectors around them. */
    void powerOn() {
        faultyCache.powerOn();
        faultyBackings.forEach(FaultyDevice::powerOn);
        for (FaultyDevice faulty : faultyMaps) {
            if (faulty != null) {
                faulty.powerOn();
            }
        }
        cacheDevice.powerOn(loop);
        for (SimDevice device : backingDevices) {
            device.powerOn(loop);
        }
        for (SimDevice map : mapDevices) {
            if (map != null) {
                map.powerOn(loop);
            }
        }
    }

    /** A clean stop of the running set; the caller waits for {@code done}. */
    void shutdown(IoCallback done) {
        set.shutdown(done);
    }

    /** The running cache set (null while the power is off). */
    CacheSet set() {
        return set;
    }

    /** Volume {@code index} of the running set, found by its name (volumes removed and added again move slots). */
    Volume volume(int index) {
        Volume volume = set.volume(FuzzSetup.volumeName(index));
        if (volume == null) {
            throw new IllegalStateException(FuzzSetup.volumeName(index) + " is not attached now");
        }
        return volume;
    }

    /** Whether knob {@code name} belongs to a volume the running set does not have (removed, not yet back). */
    private boolean ofDetachedVolume(String name) {
        for (int v = 0; v < setup.volumeCount(); v++) {
            String volume = FuzzSetup.volumeName(v);
            if ((name.startsWith("volume." + volume + ".") || name.startsWith("writeback." + volume + "."))
                    && !attached(v)) {
                return true;
            }
        }
        return false;
    }

    /** Whether volume {@code index} is attached to the running set. */
    boolean attached(int index) {
        return set.volume(FuzzSetup.volumeName(index)) != null;
    }

    /**
     * Attaches volume {@code index}'s backing device again while the set runs ({@link CacheSet#addVolume}), then
     * applies the seed's knobs of that volume (and a planted bug), as an open does. {@code ids} gives its new UUID.
     */
    void addVolume(int index, Prng ids, java.util.function.Consumer<String> done) {
        set.addVolume(spec(index), null, "", ids, added -> {
            if (!added.isOk()) {
                done.accept(added.error());
                return;
            }
            String name = FuzzSetup.volumeName(index);
            for (Map.Entry<String, String> knob : setup.knobs().entrySet()) {
                if (knob.getKey().startsWith("volume." + name + ".")
                        || knob.getKey().startsWith("writeback." + name + ".")) {
                    setKnob(knob.getKey(), knob.getValue());
                }
            }
            if (plantIgnoreEpochs) {
                set.writeback(name).setFaultIgnoreEpochs(true);
            }
            if (plantForgetRecoveredEpochs) {
                added.value().index().epochs().changedUntracked();
            }
            done.accept(null);
        });
    }

    /** Detaches volume {@code index} while the set runs ({@link CacheSet#removeVolume}); {@code done} gets why not. */
    void removeVolume(int index, boolean discardDirty, java.util.function.Consumer<String> done) {
        set.removeVolume(FuzzSetup.volumeName(index), discardDirty, removed -> done.accept(
                removed.isOk() ? null : removed.error()));
    }

    /**
     * Plants a bug for the prefix oracle to catch: from the next open on, writeback ignores epoch boundaries on
     * volumes whose knob says {@code epochs} ({@code Writeback.setFaultIgnoreEpochs}).
     */
    void plantIgnoreEpochs() {
        plantIgnoreEpochs = true;
    }

    /**
     * Plants the bug the strict prefix oracle must catch across restarts: every open forgets the epochs recovery
     * restored, so recovered dirty data has no known order (what every restart did before epochs were persisted).
     */
    void plantForgetRecoveredEpochs() {
        plantForgetRecoveredEpochs = true;
    }

    /** Volume {@code index}'s data as its backing device holds it now (completed writes), read without time. */
    java.nio.ByteBuffer peekBacking(int index) {
        java.nio.ByteBuffer contents = java.nio.ByteBuffer.allocate((int) setup.rangeBytes());
        backingDevices.get(index).peek(volume(index).backingOffsetBytes(0), contents);
        return contents;
    }

    /**
     * As {@link #peekBacking}, after a replay "in thought" of the backing log, if the device has one: what the backing
     * device alone stands for once the cache is gone (docs/FORMAT.md §4.4). Changes nothing.
     */
    java.nio.ByteBuffer peekBackingReplayed(int index) {
        return ReplayedBacking.contents(backingDevices.get(index), setup.rangeBytes());
    }

    /** The simulated disk under volume {@code index}'s backing device (for oracles that read it directly). */
    SimDevice backingDisk(int index) {
        return backingDevices.get(index);
    }

    /** Where volume {@code index}'s damage map lives: its map file, or the backing disk itself. */
    SimDevice mapDisk(int index) {
        return mapDevices.get(index) == null ? backingDevices.get(index) : mapDevices.get(index);
    }

    /** The backing device of volume {@code index}. */
    BlockDevice backing(int index) {
        return backingViews.get(index);
    }

    /** Sets a live knob by name (as {@code blockcache set} does). */
    void setKnob(String name, String value) {
        Knob knob = set.knobs().find(name);
        if (knob == null) {
            throw new IllegalStateException("fuzz setup names knob " + name + ", which does not exist");
        }
        knob.set(value);
    }

    /** Checkpoints written by every incarnation so far. */
    long checkpoints() {
        return checkpoints + (set == null ? 0 : set.checkpointsWritten());
    }

    /** Buckets evicted by every incarnation so far. */
    long evictedBuckets() {
        return evictedBuckets + (set == null ? 0 : set.garbageCollector().stats().bucketsEvicted());
    }

    /** Dirty buckets chosen for compaction by every incarnation so far. */
    long compactedBuckets() {
        return compactedBuckets + (set == null ? 0 : set.garbageCollector().stats().compactedBuckets());
    }

    /** Journal laps around the ring by every incarnation so far (bytes written / ring bytes). */
    long ringWraps() {
        long bytes = journalBytes + (set == null ? 0 : set.journal().bytesWritten());
        long ringBytes = (long) setup.options().journalBuckets() * setup.options().bucketSizeBytes();
        return bytes / ringBytes;
    }

    /** Writeback passes of whole or partial chunks (object stores) by every incarnation so far. */
    long chunkPasses() {
        return chunkPasses + (set == null ? 0 : chunkPassesNow());
    }

    /** Groups journaled write-back committed to backing logs, by every incarnation so far. */
    long logGroups() {
        return logGroups + (set == null ? 0 : logGroupsNow());
    }

    private long logGroupsNow() {
        long total = 0;
        for (io.blockcache.writeback.Writeback writeback : set.writebacks()) {
            total += writeback.logGroups();
        }
        return total;
    }

    private long chunkPassesNow() {
        long total = 0;
        for (io.blockcache.writeback.Writeback writeback : set.writebacks()) {
            total += writeback.counters().chunksWhole() + writeback.counters().chunksPartial();
        }
        return total;
    }

    private void retire() {
        if (set != null) {
            chunkPasses += chunkPassesNow();
            logGroups += logGroupsNow();
            checkpoints += set.checkpointsWritten();
            evictedBuckets += set.garbageCollector().stats().bucketsEvicted();
            compactedBuckets += set.garbageCollector().stats().compactedBuckets();
            journalBytes += set.journal().bytesWritten();
            checksumCatches += checksumErrorsNow();
            set = null; // gone with the power; nothing of it may be used again
        }
    }

    /**
     * The backing devices to open with: every volume's, except those the durable superblock does not name (a power cut
     * between a volume's removal and its return), as {@code serve} reads its superblock before opening ({@code
     * host.KnownVolumes}); the scenario adds those back after the open. Read without time, so it shifts no draw.
     */
    private List<BackingSpec> specs() {
        java.util.Set<String> named = namedBySuperblock();
        List<BackingSpec> specs = new ArrayList<>();
        for (int v = 0; v < backingDevices.size(); v++) {
            if (named == null || named.contains(FuzzSetup.volumeName(v))) {
                specs.add(spec(v));
            }
        }
        return specs;
    }

    private BackingSpec spec(int v) {
        return new BackingSpec(FuzzSetup.volumeName(v), backingViews.get(v)).withMapDevice(mapViews.get(v))
                .withLogSizeBytes(setup.logBytes().get(v));
    }

    /** The names the cache device's chosen superblock attaches, or null if none decodes (before a format). */
    java.util.Set<String> namedBySuperblock() {
        java.nio.ByteBuffer head = java.nio.ByteBuffer.allocate(2 * CacheSuperblock.BYTES);
        cacheDevice.peek(0, head);
        DecodeResult<SuperblockPair> pair = SuperblockPair.readHead(head.array());
        if (!pair.isOk()) {
            return null;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (AttachedBacking slot : pair.value().chosen().backings()) {
            names.add(slot.exportName());
        }
        return names;
    }
}

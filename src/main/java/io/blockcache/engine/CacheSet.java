package io.blockcache.engine;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.JournalRecord;
import io.blockcache.journal.CheckpointWriter;
import io.blockcache.journal.JournalWriter;
import io.blockcache.loop.Checks;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import io.blockcache.device.IoJoin;
import io.blockcache.volume.DamageMap;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.DrainJob;
import io.blockcache.writeback.DrainLimits;
import io.blockcache.writeback.DrainProgress;
import io.blockcache.writeback.Writeback;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;

/**
 * One cache device and the backing devices attached to it, each served as a {@link Volume}: the engine's
 * entry point (internal; applications use {@code io.blockcache.embed.BlockCache}, which wraps it on its own loop).
 *
 * <p>Life cycle: {@link #format} once; {@link #open} at every start (this is recovery: newest valid
 * superblock, newest checkpoint, journal replay — and after a crash, just the same); {@link #shutdown} to
 * stop cleanly. A crash at any moment, recovery included, is just another crash.
 *
 * <p>Thread rule: every method on {@code loop}'s thread; callbacks run there.
 */
public final class CacheSet {
    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    /**
     * The attached backing devices, volumes and writeback engines, in superblock slot order; changed only on the loop
     * by {@link VolumeAttacher} and {@link VolumeDetacher}, whose superblock rewrite decides what the next open sees.
     */
    private final List<BackingSpec> backings;
    private final CacheSpace space;
    private final JournalWriter journal;
    private final CheckpointWriter checkpoints;
    private final List<Volume> volumes;
    private final List<Writeback> writebacks;
    private final CacheSetOptions options;
    /** A volume attach, detach or grow in progress: one at a time, as each rewrites the superblock. */
    private boolean volumeChanging;
    private final KnobRegistry knobs = new KnobRegistry();
    private CacheSuperblock superblock;
    private boolean shutDown;
    private CoverageFlusher coverageFlusher;
    private io.blockcache.volume.CoveredWrites coveredWrites;
    private io.blockcache.gc.GarbageCollector gc;

    /**
     * @param backings the builder's list, kept (not copied): the shutdown checkpoint's backing flush walks it, and a
     *     volume attached later must be flushed too
     */
    CacheSet(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings, CacheSuperblock superblock,
             CacheSpace space, JournalWriter journal, CheckpointWriter checkpoints, List<Volume> volumes,
             List<Writeback> writebacks, CacheSetOptions options) {
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.backings = backings;
        this.superblock = superblock;
        this.space = space;
        this.journal = journal;
        this.checkpoints = checkpoints;
        this.volumes = new ArrayList<>(volumes);
        this.writebacks = new ArrayList<>(writebacks);
        this.options = options;
        for (int i = 0; i < volumes.size(); i++) {
            KnobTable.bind(knobs, backings.get(i).name(), KnobTarget.ofVolume(volumes.get(i), writebacks.get(i)));
        }
    }

    /**
     * Starts every volume's writeback: at the very end of the open, in the task that hands the set to its caller, so
     * that the caller's knobs (a config's {@code ordering}, {@code running}) are in force before any writeback timer
     * can fire. Started when the set was built, writeback ran with the default knobs while the open still wrote the
     * damage maps (device I/O that can outlast the 100 ms sample): an unordered pass there dropped, and now voids,
     * the recovered epochs of a volume configured with {@code ordering=epochs} (fuzz seed 43).
     */
    void startWriteback() {
        for (Writeback writeback : writebacks) {
            writeback.start();
        }
        if (coverageFlusher != null) {
            coverageFlusher.start(); // clean copies filled from now on are covered a second later (FORMAT.md §7)
        }
        if (space.allocator().quarantinedBuckets() > 0) {
            checkpoints.start(ignored -> { }); // gives back the buckets an unclean open held back; a failure: later
        }
    }

    /** Wires the rounds that cover clean copies in (the builder, once). */
    void attachCoverage(CoverageFlusher flusher) {
        coverageFlusher = flusher;
    }

    void attachCoveredWrites(io.blockcache.volume.CoveredWrites writes) {
        coveredWrites = writes;
    }

    /** The order every volume's backing data writes keep (docs/FORMAT.md §7 rule 10); a volume attached later too. */
    io.blockcache.volume.CoveredWrites coveredWrites() {
        return coveredWrites;
    }

    /** Rounds of backing flushes that covered clean copies since the open (docs/FORMAT.md §7 rule 10). */
    public long coverageRounds() {
        return coverageFlusher == null ? 0 : coverageFlusher.rounds();
    }

    /** Wires garbage collection in (the builder, once) and registers its knobs. */
    void attachGc(io.blockcache.gc.GarbageCollector collector) {
        gc = collector;
        KnobTable.bind(knobs, null, KnobTarget.ofGc(collector));
    }

    /** Garbage collection: statistics, bucket counts, settings. */
    public io.blockcache.gc.GarbageCollector garbageCollector() {
        return gc;
    }

    /** Runs a garbage collection now (or joins the one running); {@code done} when it has finished. */
    public void gc(IoCallback done) {
        Checks.onLoop(loop, "CacheSet.gc");
        gc.gc(done);
    }

    /** The live tunables of this cache set. */
    public KnobRegistry knobs() {
        return knobs;
    }

    /** The loop that owns this cache set. */
    public EventLoop loop() {
        return loop;
    }

    /**
     * Why a cache device of {@code sizeBytes} is too small (or otherwise unfit) to be formatted with {@code options},
     * or null if it is fit: asked before a new cache file is created, so that a refusal writes nothing.
     */
    public static String cacheGeometryProblem(long sizeBytes, CacheSetOptions options) {
        return CacheFormatter.cacheGeometryProblem(sizeBytes, options);
    }

    /**
     * A cache device grown before open ({@link #grow}): its bucket count before and after.
     *
     * @param bucketsBefore buckets the superblock named before
     * @param bucketsAfter buckets it names now (equal: there was nothing to grow)
     * @param bucketSizeBytes the size of one bucket
     */
    public record Growth(int bucketsBefore, int bucketsAfter, int bucketSizeBytes) {
        /** Bytes of cache the growth added. */
        public long addedBytes() {
            return (long) (bucketsAfter - bucketsBefore) * bucketSizeBytes;
        }
    }

    /**
     * Grows the cache set on {@code cacheDevice}, which the caller has made larger, to every whole bucket the device
     * now holds (docs/OPERATIONS.md "Grow the cache device"), before it is opened: the superblock pair with the new
     * bucket count is the commit point; the new buckets open free. {@code done} gets the growth, or why not.
     */
    public static void grow(BlockDevice cacheDevice, Consumer<Outcome<Growth>> done) {
        CacheGrower.grow(cacheDevice, done);
    }

    /**
     * Formats {@code cacheDevice} and writes a header to each backing device, attaching them to a new cache
     * set. Existing contents of the cache device are lost; backing data is untouched except the first 1 MiB.
     *
     * @param ids source of the new cache set's and backing devices' UUIDs
     * @param progress told the fraction done in [0, 1] as the journal ring is cleared
     */
    public static void format(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings,
                              CacheSetOptions options, Prng ids, DoubleConsumer progress,
                              Consumer<Outcome<Void>> done) {
        CacheFormatter.format(cacheDevice, backings, options, ids, progress, done);
    }

    /**
     * Opens a formatted cache set: checks the superblocks and every backing device's identity and size,
     * loads the newest checkpoint and replays the journal. Refuses, with a message saying what was found and
     * what was expected, a wrong, resized or foreign backing device, or a corrupt journal. Backing devices
     * are matched to the superblock's records by export name.
     */
    public static void open(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings,
                            CacheSetOptions options, Consumer<Outcome<CacheSet>> done) {
        open(loop, cacheDevice, backings, options, new RecoveryProgress(), done);
    }

    /**
     * Like {@link #open(EventLoop, BlockDevice, List, CacheSetOptions, Consumer)}, reporting to {@code progress}
     * as it goes. The replay runs in slices of bounded work on the loop (docs/ARCHITECTURE.md §4.6), so other loop
     * tasks — an admin request reading {@code progress} — run between them.
     */
    public static void open(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings,
                            CacheSetOptions options, RecoveryProgress progress, Consumer<Outcome<CacheSet>> done) {
        CacheOpener.open(loop, cacheDevice, backings, options, progress, done);
    }

    /** The volumes, in the order the superblock records their backing devices (a snapshot: volumes come and go). */
    public List<Volume> volumes() {
        return List.copyOf(volumes);
    }

    /**
     * Attaches backing device {@code spec} as a new volume while the cache runs (docs/OPERATIONS.md "Add a volume"):
     * writes its backing header and empty damage map, makes the superblock that names it durable (the commit point:
     * a crash before it leaves the set as it was), then wires and starts it. {@code done} gets the volume, or one line
     * saying why not (nothing attached).
     *
     * @param mode the new volume's cache mode, kept across restarts; null for the set's default
     * @param location where the backing store is (a path or URI, at most 142 bytes), recorded in the superblock so
     *     that a restart finds it without being told; "" for none
     * @param ids source of the new backing device's UUID
     */
    public void addVolume(BackingSpec spec, io.blockcache.volume.CacheMode mode, String location, Prng ids,
                          Consumer<Outcome<Volume>> done) {
        Checks.onLoop(loop, "CacheSet.addVolume");
        if (!beginVolumeChange(done)) {
            return;
        }
        VolumeAttacher.attach(this, spec, mode, location, ids, outcome -> {
            volumeChanging = false;
            done.accept(outcome);
        });
    }

    /**
     * Detaches volume {@code name} while the cache runs (docs/OPERATIONS.md "Remove a volume"): refuses while it holds
     * dirty data unless {@code discardDirty}; else closes it, waits for its requests, drops its extents, writes a
     * checkpoint that no longer holds it and then the superblock without it (the commit point). {@code done} gets
     * null on success, or one line saying why not.
     */
    public void removeVolume(String name, boolean discardDirty, Consumer<Outcome<Void>> done) {
        Checks.onLoop(loop, "CacheSet.removeVolume");
        if (!beginVolumeChange(done)) {
            return;
        }
        VolumeDetacher.detach(this, name, discardDirty, outcome -> {
            volumeChanging = false;
            done.accept(outcome);
        });
    }

    /**
     * Grows volume {@code name} to {@code sizeBytes} (docs/OPERATIONS.md "Resize a volume"): the caller has made its
     * backing device large enough; the superblock with the new size is the commit point, the backing header follows
     * (an open after a crash in between finishes it). Shrinking is refused.
     */
    public void growVolume(String name, long sizeBytes, Consumer<Outcome<Void>> done) {
        Checks.onLoop(loop, "CacheSet.growVolume");
        if (!beginVolumeChange(done)) {
            return;
        }
        VolumeGrower.grow(this, name, sizeBytes, outcome -> {
            volumeChanging = false;
            done.accept(outcome);
        });
    }

    private <T> boolean beginVolumeChange(Consumer<Outcome<T>> done) {
        if (shutDown || volumeChanging) {
            String why = shutDown ? "the cache set is shutting down" : "another volume change is in progress";
            loop.execute(() -> done.accept(Outcome.failed(why)));
            return false;
        }
        volumeChanging = true;
        return true;
    }

    /** The slot index of volume {@code name}, or -1. */
    int slotOf(String name) {
        for (int i = 0; i < backings.size(); i++) {
            if (backings.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Wires a volume whose slot the durable superblock already names (the attach's last step). */
    void wired(BackingSpec spec, Volume volume, Writeback writeback) {
        backings.add(spec);
        volumes.add(volume);
        writebacks.add(writeback);
        KnobTable.bind(knobs, spec.name(), KnobTarget.ofVolume(volume, writeback));
        checkpoints.addVolume(volume.volumeId(), volume.index().extents(), volume.index()::recordedEpochAt);
        gc.addVolume(volume.index());
    }

    /** Unwires the volume in slot {@code slot}, whose superblock no longer names it (the detach's last step). */
    void unwired(int slot) {
        knobs.removeVolume(backings.get(slot).name());
        backings.remove(slot);
        volumes.remove(slot);
        writebacks.remove(slot);
    }

    CacheSetOptions options() {
        return options;
    }

    CheckpointWriter checkpoints() {
        return checkpoints;
    }

    BlockDevice cacheDevice() {
        return cacheDevice;
    }

    /** The backing devices as wired (behind their sticky flush), in slot order. */
    List<BackingSpec> backingSpecs() {
        return List.copyOf(backings);
    }

    /** True while any volume has a front-end request in flight (GC's pacing asks, every slice). */
    boolean anyRequestInFlight() {
        for (Volume volume : volumes) {
            if (volume.counters().inFlight() > 0) {
                return true;
            }
        }
        return false;
    }

    /** The volume exported as {@code name}, or null. */
    public Volume volume(String name) {
        int slot = slotOf(name);
        return slot < 0 ? null : volumes.get(slot);
    }

    /** The writeback engine of the volume exported as {@code name}, or null. */
    public Writeback writeback(String name) {
        int slot = slotOf(name);
        return slot < 0 ? null : writebacks.get(slot);
    }

    /** The writeback engines, in volume order (a snapshot). */
    public List<Writeback> writebacks() {
        return List.copyOf(writebacks);
    }

    /**
     * Writes every dirty extent of volume {@code name} back now at full speed; {@code progress} hears dirty bytes
     * left, the measured rate and an ETA every sample; {@code done} once nothing is dirty and the clean markings
     * are durable in the journal.
     */
    public void drain(String name, Consumer<DrainProgress> progress, IoCallback done) {
        Checks.onLoop(loop, "CacheSet.drain");
        Writeback writeback = writeback(name);
        if (writeback == null) {
            loop.execute(() -> done.complete(IoResult.error(IoStatus.OUT_OF_RANGE, "no volume named " + name)));
            return;
        }
        writeback.drain(progress, done);
    }

    /**
     * Starts a drain job of volume {@code name} within {@code limits} (docs/WRITEBACK.md, "Drain jobs"); see
     * {@link Writeback#drain(DrainLimits, Consumer, IoCallback)}. Pause, resume and cancel it through
     * {@link #writeback(String)}.
     *
     * @throws IllegalArgumentException if there is no such volume
     * @throws io.blockcache.writeback.DrainRefused if its deadline cannot be met
     */
    public DrainJob drain(String name, DrainLimits limits, Consumer<DrainProgress> progress, IoCallback done) {
        Writeback writeback = writeback(name);
        if (writeback == null) {
            throw new IllegalArgumentException("no volume named " + name);
        }
        return writeback.drain(limits, progress, done);
    }

    /** The export names, in volume order. */
    public List<String> exportNames() {
        return backings.stream().map(BackingSpec::name).toList();
    }

    /** The superblock now in force. */
    public CacheSuperblock superblock() {
        return superblock;
    }

    /** The journal (statistics, and the writeback and GC engines to come). */
    public JournalWriter journal() {
        return journal;
    }

    /** The bucket space (statistics). */
    public CacheSpace space() {
        return space;
    }

    /** Checkpoints written since open. */
    public long checkpointsWritten() {
        return checkpoints.checkpointsWritten();
    }

    /** Buckets in {@code state} now. O(buckets). */
    public int buckets(BucketState state) {
        return space.table().count(state);
    }

    /** Writes a checkpoint now (or joins the one running); {@code done} when it is durable. */
    public void checkpoint(IoCallback done) {
        Checks.onLoop(loop, "CacheSet.checkpoint");
        checkpoints.start(done);
    }

    /**
     * Stops cleanly once the caller has no request in flight: refuses new requests, commits the journal,
     * writes a checkpoint, records a clean shutdown and marks the superblock clean.
     */
    public void shutdown(IoCallback done) {
        Checks.onLoop(loop, "CacheSet.shutdown");
        if (shutDown) {
            loop.execute(() -> done.complete(IoResult.error(IoStatus.CLOSED, "cache set already shut down")));
            return;
        }
        shutDown = true;
        if (coverageFlusher != null) {
            coverageFlusher.stop(); // the shutdown checkpoint flushes the backing devices itself (FORMAT.md §7 rule 8)
        }
        for (Volume volume : volumes) {
            volume.close();
        }
        IoJoin quiet = new IoJoin(stopped -> sweepDamage(swept -> checkpointAndClose(done)));
        for (Writeback writeback : writebacks) {
            writeback.stop(quiet.add());
        }
        quiet.seal();
    }

    /**
     * Marks every region holding dirty data in each volume's damage map and writes blocks that have no valid copy
     * (open, before the volumes serve); {@code done} when durable, or with the first error.
     */
    void markDamage(IoCallback done) {
        IoJoin join = new IoJoin(done);
        for (Volume volume : volumes) {
            if (volume.damageMap() != null) {
                volume.damageMap().markDirty(join.add());
            }
        }
        join.add();
        loop.execute(() -> join.complete(IoResult.OK)); // never complete inside the call
        join.seal();
    }

    /**
     * Shutdown, with the front end and writeback stopped: clears what is clean from every damage map, so that the
     * map left on the backing devices lists only the dirty data the cache still holds. A failed clear leaves the
     * region marked, which is safe, so its error does not fail the shutdown.
     */
    private void sweepDamage(IoCallback done) {
        IoJoin join = new IoJoin(ignored -> done.complete(IoResult.OK));
        for (Volume volume : volumes) {
            DamageMap damage = volume.damageMap();
            if (damage != null) {
                IoCallback part = join.add();
                damage.sweep(result -> {
                    damage.close();
                    part.complete(result);
                });
            }
        }
        join.add();
        loop.execute(() -> join.complete(IoResult.OK));
        join.seal();
    }

    private void checkpointAndClose(IoCallback done) {
        checkpoints.startForShutdown(checkpointed -> {
            if (!checkpointed.ok()) {
                done.complete(checkpointed);
                return;
            }
            journal.append(new JournalRecord.CleanShutdown());
            journal.commit(committed -> {
                if (!committed.ok()) {
                    done.complete(committed);
                    return;
                }
                // Backings cached in place: their fingerprints now, after the last write and flush of theirs, are
                // what the next open checks (docs/FORMAT.md §4.1).
                refingerprint(0, new ArrayList<>(), backingsNow -> {
                    if (!backingsNow.isOk()) {
                        done.complete(IoResult.error(IoStatus.IO_ERROR, backingsNow.error()));
                        return;
                    }
                    rewriteSuperblock(CacheSuperblock.FLAG_CLEAN_SHUTDOWN, backingsNow.value(), done);
                });
            });
        });
    }

    /** The superblock's slots with the fingerprint of every backing cached in place taken again. */
    private void refingerprint(int index, List<AttachedBacking> slots, Consumer<Outcome<List<AttachedBacking>>> done) {
        if (index == superblock.backings().size()) {
            done.accept(Outcome.ok(slots));
            return;
        }
        AttachedBacking slot = superblock.backings().get(index);
        if (!slot.inPlace()) {
            slots.add(slot);
            refingerprint(index + 1, slots, done);
            return;
        }
        BackingFingerprint.of(backings.get(index).device(), fingerprint -> {
            if (!fingerprint.isOk()) {
                done.accept(Outcome.failed("backing device \"" + slot.exportName() + "\": " + fingerprint.error()));
                return;
            }
            slots.add(slot.withFingerprint(fingerprint.value()));
            refingerprint(index + 1, slots, done);
        });
    }

    /** Writes both superblock copies with a bumped sequence and {@code flags}: A, flush, B, flush. */
    void rewriteSuperblock(int flags, IoCallback done) {
        rewriteSuperblock(flags, superblock.backings(), done);
    }

    /**
     * Writes both superblock copies with {@code slots} and the flags as they are (A, flush, B, flush): the commit
     * point of a volume attach, detach or grow (a crash tears at most one copy, and the valid newer one wins).
     */
    void rewriteSlots(List<AttachedBacking> slots, IoCallback done) {
        rewriteSuperblock(superblock.flags(), slots, done);
    }

    private void rewriteSuperblock(int flags, List<AttachedBacking> slots, IoCallback done) {
        CacheSuperblock next = superblock.next(flags, slots);
        byte[] encoded = next.encode();
        DeviceBytes.writeAndFlush(cacheDevice, 0, encoded, first -> {
            if (!first.ok()) {
                done.complete(first);
                return;
            }
            DeviceBytes.writeAndFlush(cacheDevice, CacheSuperblock.BYTES, encoded, second -> {
                if (second.ok()) {
                    superblock = next;
                }
                done.complete(second);
            });
        });
    }
}

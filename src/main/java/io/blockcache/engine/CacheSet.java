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
    private final List<BackingSpec> backings;
    private final CacheSpace space;
    private final JournalWriter journal;
    private final CheckpointWriter checkpoints;
    private final List<Volume> volumes;
    private final List<Writeback> writebacks;
    private final KnobRegistry knobs = new KnobRegistry();
    private CacheSuperblock superblock;
    private boolean shutDown;
    private CoverageFlusher coverageFlusher;
    private io.blockcache.gc.GarbageCollector gc;

    CacheSet(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings, CacheSuperblock superblock,
             CacheSpace space, JournalWriter journal, CheckpointWriter checkpoints, List<Volume> volumes,
             List<Writeback> writebacks) {
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.backings = List.copyOf(backings);
        this.superblock = superblock;
        this.space = space;
        this.journal = journal;
        this.checkpoints = checkpoints;
        this.volumes = List.copyOf(volumes);
        this.writebacks = List.copyOf(writebacks);
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

    /** The volumes, in the order the superblock records their backing devices. */
    public List<Volume> volumes() {
        return volumes;
    }

    /** The volume exported as {@code name}, or null. */
    public Volume volume(String name) {
        for (int i = 0; i < backings.size(); i++) {
            if (backings.get(i).name().equals(name)) {
                return volumes.get(i);
            }
        }
        return null;
    }

    /** The writeback engine of the volume exported as {@code name}, or null. */
    public Writeback writeback(String name) {
        for (int i = 0; i < backings.size(); i++) {
            if (backings.get(i).name().equals(name)) {
                return writebacks.get(i);
            }
        }
        return null;
    }

    /** The writeback engines, in volume order. */
    public List<Writeback> writebacks() {
        return writebacks;
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

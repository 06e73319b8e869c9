package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Knob;
import io.blockcache.engine.OpenWarmUp;
import io.blockcache.engine.Outcome;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.Writeback;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;

/**
 * One cache set on files and its own real loop: created and formatted when the cache file is new, recovered
 * when it is not, with the configured knobs applied; {@link #shutdown} stops it cleanly and {@link #close}
 * releases the devices and the loop.
 *
 * <p>Thread rule: every method from a thread other than the loop's (it waits for the loop); the accessors
 * hand out loop-owned objects, which only the loop thread may use.
 */
public final class CacheHost implements AutoCloseable {
    /** How long format, open, shutdown or a device close may take before the host gives up on the loop. */
    public static final Duration LOOP_STEP_TIMEOUT = Duration.ofSeconds(120);

    private final HostFiles files;
    private final EventSink log;
    private final RealLoop loop;
    /** Copy-on-write: volumes added and removed live change them while the admin API reads them. */
    private final List<BlockDevice> devices = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<BackingSpec> backings = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final String loopName;
    private CacheSet set;
    private HostVolumes volumes;
    private DeviceWatcher watcher;
    private boolean closed;

    /** Runs once the files are ready and before recovery starts (serve binds its admin endpoint there). */
    @FunctionalInterface
    public interface BeforeRecovery {
        /** @throws HostException to refuse the open, with the message for the user */
        void run(RealLoop loop) throws HostException;
    }

    private CacheHost(HostFiles files, String loopName, EventSink log) {
        this.files = files;
        this.log = log;
        this.loop = new RealLoop(loopName);
        this.loopName = loopName;
    }

    /**
     * Opens (or creates and formats) the files and the cache set and applies the knobs. On failure everything
     * already opened is closed again.
     *
     * @param loopName the loop thread's name
     * @param log told each notable step (files created, formatting, volumes attached) as a named event
     * @param formatProgress told the fraction done in [0, 1] while a new cache is formatted
     * @throws HostException with the message for the user (the engine's own message for open errors)
     */
    public static CacheHost open(HostFiles files, String loopName, EventSink log,
                                 DoubleConsumer formatProgress) throws HostException {
        return open(files, loopName, log, formatProgress, new RecoveryProgress(), loop -> { });
    }

    /**
     * {@link #open(HostFiles, String, EventSink, DoubleConsumer)} that reports recovery's progress to
     * {@code recovery} (its loop-thread rule applies) and runs {@code beforeRecovery} just before recovery starts.
     */
    public static CacheHost open(HostFiles files, String loopName, EventSink log, DoubleConsumer formatProgress,
                                 RecoveryProgress recovery, BeforeRecovery beforeRecovery) throws HostException {
        CacheHost host = new CacheHost(files, loopName, log);
        try {
            host.openAll(formatProgress, recovery, beforeRecovery);
            return host;
        } catch (HostException | RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /** Where the host's events go. */
    EventSink log() {
        return log;
    }

    /** The cache set (loop-thread rule applies). */
    public CacheSet cacheSet() {
        return set;
    }

    /** The loop that owns the cache set. */
    public RealLoop loop() {
        return loop;
    }

    /**
     * Adds a volume to the running cache (docs/OPERATIONS.md "Add a volume"): opens {@code location} (a file, created
     * sparse with {@code volumeBytes} plus its header when missing, {@code nbd://} or {@code s3://}), attaches it in
     * {@code mode} and keeps it across restarts (the cache's superblock names it). A refusal leaves nothing attached,
     * created or open.
     *
     * @param force overwrite a store that holds another cache set's metadata
     * @return the new volume (loop-thread rule applies)
     * @throws HostException with one line for the user
     */
    public Volume addVolume(String name, BackingLocation location, long volumeBytes, CacheMode mode, boolean force)
            throws HostException {
        return volumes.add(name, location, volumeBytes, 0, false, mode, force);
    }

    /**
     * As {@link #addVolume(String, BackingLocation, long, CacheMode, boolean)}, with a backing log of {@code logBytes}
     * (a whole number of MiB; docs/FORMAT.md §4.4) between the store's header and its data, as {@code format
     * --backing-log} makes: a store created here is that much larger, and a store added again must have it already;
     * or, {@code inPlace}, an existing store cached in place (docs/FORMAT.md §4.2): nothing is written on it.
     */
    public Volume addVolume(String name, BackingLocation location, long volumeBytes, long logBytes, boolean inPlace,
                            CacheMode mode, boolean force) throws HostException {
        return volumes.add(name, location, volumeBytes, logBytes, inPlace, mode, force);
    }

    /**
     * Removes volume {@code name} from the running cache (docs/OPERATIONS.md "Remove a volume") and closes its backing
     * store; refused while it holds dirty data unless {@code discardDirty}.
     */
    public void removeVolume(String name, boolean discardDirty) throws HostException {
        volumes.remove(name, discardDirty);
    }

    /**
     * Grows volume {@code name} to {@code sizeBytes} (docs/OPERATIONS.md "Resize a volume"): a backing file is
     * extended first; any other store must have grown already. Shrinking is refused.
     */
    public void growVolume(String name, long sizeBytes) throws HostException {
        volumes.grow(name, sizeBytes);
    }

    /** The cache device. */
    public FileDevice cacheDevice() {
        return (FileDevice) devices.get(0);
    }

    /** The backing devices with their export names, in volume order (a snapshot: volumes come and go). */
    public List<BackingSpec> backings() {
        return List.copyOf(backings);
    }

    /** What was opened. */
    public HostFiles files() {
        return files;
    }

    private void openAll(DoubleConsumer formatProgress, RecoveryProgress recovery, BeforeRecovery beforeRecovery)
            throws HostException {
        boolean fresh = !Files.exists(files.cacheFile());
        KnownVolumes known = KnownVolumes.of(files);
        HostDevices opener = new HostDevices(known.forOpen(), loop, log);
        opener.open(fresh, devices, backings);
        volumes = new HostVolumes(this, devices, backings, opener);
        if (fresh) {
            format(formatProgress);
        } else {
            if (files.growCache()) {
                growCache();
            }
            // An existing cache may need recovery: pay the JVM's one-time costs of an open that replays here, off the
            // loop, so the real replay's loop tasks stay short and the admin API answers during it.
            OpenWarmUp.run();
        }
        beforeRecovery.run(loop);
        // The knobs are set in the open's own callback, in the loop task that ends recovery: writeback and GC
        // start on timers, so none of their work runs under the defaults first. (Applied in a later task, a
        // configured `writeback.NAME.running=false` let a pass write back dirty data at start: ServeRuntimeTest
        // saw it at load 16.) Also, the epochs recovery restored are taken up only if ordering is on before
        // writeback writes anything (docs/WRITEBACK.md).
        String[] knobProblem = new String[1];
        Outcome<CacheSet> opened = onLoop(done -> CacheSet.open(loop, cacheDevice(), backings, files.options(),
                recovery, outcome -> {
                    if (outcome.isOk()) {
                        set = outcome.value();
                        knobProblem[0] = setKnobs(files.knobs());
                    }
                    done.accept(outcome);
                }));
        if (!opened.isOk()) {
            throw new HostException("cannot open the cache set in " + files.cacheFile() + ": " + opened.error());
        }
        if (knobProblem[0] != null) {
            throw new HostException(knobProblem[0]);
        }
        for (Map.Entry<String, BackingLocation> added : known.toAdd().entrySet()) {
            volumes.add(added.getKey(), added.getValue(), files.backingSizeBytes(), 0, false, null, files.force());
        }
        watcher = new DeviceWatcher(loop, loopName + "-device-watch", set, watchedFiles(), log);
        watcher.start();
    }

    /**
     * Grows an existing cache to the size the operator gave (docs/OPERATIONS.md "Grow the cache device"): extends a
     * smaller cache file, then lets the engine take every whole bucket the device holds ({@link CacheSet#grow}: the
     * superblock rewrite is the commit point, so a crash in between opens the old or the new geometry). A block device
     * is not extended here; one that an operator enlarged (an LVM volume) grows to its new size. A smaller size than
     * the cache has is said once and not applied: shrinking would drop cached data, dirty data among it.
     */
    private void growCache() throws HostException {
        FileDevice device = cacheDevice();
        if (!holdsSuperblock()) {
            return; // not a cache (or a damaged one): nothing is written, and the open says what it found
        }
        long wanted = files.cacheSizeBytes() - files.cacheSizeBytes() % BlockDevice.SECTOR_BYTES;
        if (wanted > device.sizeBytes() && Files.isRegularFile(files.cacheFile())) {
            try {
                device.grow(wanted);
            } catch (java.io.IOException e) {
                throw new HostException("cannot grow the cache file " + files.cacheFile() + " to " + wanted
                        + " bytes: " + e.getMessage() + "; the cache was not changed");
            }
        }
        Outcome<CacheSet.Growth> grown = onLoop(done -> CacheSet.grow(device, done));
        if (!grown.isOk()) {
            throw new HostException("cannot grow the cache in " + files.cacheFile() + ": " + grown.error());
        }
        CacheSet.Growth growth = grown.value();
        if (growth.addedBytes() > 0) {
            log.log(LogEvent.of(EventName.HOST_CACHE_GROWN, "cache " + files.cacheFile() + " grown by "
                    + growth.addedBytes() + " bytes: " + growth.bucketsBefore() + " -> " + growth.bucketsAfter()
                    + " buckets of " + growth.bucketSizeBytes() + " bytes")
                    .with("path", files.cacheFile().toString()).with("bytes", growth.addedBytes()));
        } else if (wanted < device.sizeBytes()) {
            log.log(LogEvent.of(EventName.HOST_CACHE_SIZE_IGNORED, "warning: cache-size " + files.cacheSizeBytes()
                    + " is smaller than the cache in " + files.cacheFile() + " (" + device.sizeBytes() + " bytes);"
                    + " shrinking a cache is not supported, so it keeps its size")
                    .with("path", files.cacheFile().toString()));
        }
    }

    /** Whether the cache file starts with a valid superblock pair (blocking read; before the open). */
    private boolean holdsSuperblock() {
        try {
            return io.blockcache.format.SuperblockPair.readHead(MetadataGuard.head(files.cacheFile())).isOk();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The cache file, the backing files and the damage-map files: the devices that can change under us. */
    private List<DeviceWatcher.Watched> watchedFiles() {
        List<DeviceWatcher.Watched> watched = new ArrayList<>();
        watched.add(new DeviceWatcher.Watched(DeviceWatcher.Role.CACHE, null, cacheDevice()));
        for (BackingSpec backing : backings) {
            if (backing.device() instanceof FileDevice file) {
                watched.add(new DeviceWatcher.Watched(DeviceWatcher.Role.BACKING, backing.name(), file));
            }
            if (backing.mapDevice() instanceof FileDevice map) {
                watched.add(new DeviceWatcher.Watched(DeviceWatcher.Role.DAMAGE_MAP, backing.name(), map));
            }
        }
        return watched;
    }

    /**
     * Checks every file under the cache now (deleted, replaced, truncated while open: {@link DeviceWatcher}) and
     * reports what changed; blocks in a few system calls.
     *
     * @return one line per changed file, empty if none
     */
    public List<String> checkFiles() {
        return watcher == null ? List.of() : watcher.checkNow();
    }

    private void format(DoubleConsumer progress) throws HostException {
        log.log(LogEvent.of(EventName.HOST_FORMAT, "formatting " + files.cacheFile() + " for "
                + files.backings().keySet()).with("path", files.cacheFile().toString()));
        // UUIDs must differ between cache sets; the engine takes them from a Prng, so seed it unpredictably
        // (the host is outside the deterministic engine).
        Prng ids = new Prng(new SecureRandom().nextLong());
        Outcome<Void> formatted = onLoop(done -> CacheSet.format(loop, cacheDevice(), backings, files.options(), ids,
                progress, done));
        if (!formatted.isOk()) {
            throw new HostException("formatting " + files.cacheFile() + " failed: " + formatted.error()
                    + " (delete the new files before retrying)");
        }
    }

    /**
     * Sets each knob, in the map's order, on the loop; stops at the first refusal.
     *
     * @return null if all were set, else one line naming the knob, the value and why it was refused
     */
    public String applyKnobs(Map<String, String> knobs) throws HostException {
        return this.<String>onLoop(done -> done.accept(setKnobs(knobs)));
    }

    /** Sets {@code knobs} in order on the loop thread; the first refusal as a message, or null. */
    private String setKnobs(Map<String, String> knobs) {
        for (Map.Entry<String, String> knob : knobs.entrySet()) {
            String problem = setKnob(knob.getKey(), knob.getValue());
            if (problem != null) {
                return "knob." + knob.getKey() + "=" + knob.getValue() + ": " + problem;
            }
        }
        return null;
    }

    private String setKnob(String name, String value) {
        Knob found = set.knobs().find(name);
        if (found == null) {
            return "no knob named \"" + name + "\"; knobs: " + set.knobs().list().stream().map(Knob::name).toList();
        }
        try {
            found.set(value);
            if (found.deprecation() != null) {
                // A config file or an embedder still using an old name: it works, and the operator learns the new one.
                System.err.println("blockcache: warning: " + found.deprecation());
            }
            return null;
        } catch (IllegalArgumentException refused) {
            return refused.getMessage() + " (" + found.description() + ")";
        }
    }

    /**
     * Shuts the cache set down cleanly (journal committed, checkpoint, clean flag) once no request is in flight.
     *
     * @return the outcome; not OK means the next open recovers from the journal
     */
    public IoResult shutdown() throws HostException {
        if (set == null) {
            return IoResult.OK;
        }
        // Checked now, not at the last tick: a changed backing file must be fenced before the shutdown writes to it,
        // and a clean shutdown written into a deleted cache file is no clean shutdown.
        checkFiles();
        long dirtyBytes = this.<Long>onLoop(done -> done.accept(
                set.writebacks().stream().mapToLong(Writeback::dirtyBytes).sum()));
        IoResult result = this.<IoResult>onLoop(done -> set.shutdown(done::accept));
        String cacheChange = cacheDevice().changeFound();
        if (cacheChange == null) {
            return result;
        }
        return IoResult.error(IoStatus.IO_ERROR, "the cache " + cacheChange + ": the clean shutdown went into that"
                + " file and ends with this process, with the " + dirtyBytes + " dirty bytes not drained to the backing"
                + " stores; read docs/OPERATIONS.md \"A device vanished\" before the next start");
    }

    /** Closes the devices and stops the loop (after {@link #shutdown}, or instead of it after a failure). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (watcher != null) {
            watcher.close(); // before the devices close under it
        }
        if (!devices.isEmpty() && loop.failure() == null) {
            try {
                this.<Boolean>onLoop(done -> {
                    devices.forEach(BlockDevice::close); // FileDevice.close must run on its loop
                    done.accept(true);
                });
            } catch (HostException e) {
                log.log(EventName.HOST_CLOSE_FAILED, "closing the device files: " + e.getMessage());
            }
        }
        loop.close();
    }

    /** Runs an asynchronous operation on the loop and waits for the value it hands to {@code done}. */
    public <T> T onLoop(Consumer<Consumer<T>> operation) throws HostException {
        return onLoop(loop, operation);
    }

    /** {@link #onLoop(Consumer)} on {@code loop}, within {@link #LOOP_STEP_TIMEOUT}. */
    static <T> T onLoop(RealLoop loop, Consumer<Consumer<T>> operation) throws HostException {
        try {
            return LoopCalls.await(loop, operation, LOOP_STEP_TIMEOUT);
        } catch (LoopCalls.NoAnswer e) {
            throw new HostException(e.getMessage());
        }
    }
}

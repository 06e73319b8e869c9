package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.NbdDevice;
import io.blockcache.backing.NbdUri;
import io.blockcache.backing.S3Backing;
import io.blockcache.backing.S3Device;
import io.blockcache.backing.S3Options;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Knob;
import io.blockcache.engine.Outcome;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.ExistingMetadata;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
    private final Consumer<String> log;
    private final RealLoop loop;
    private final List<BlockDevice> devices = new ArrayList<>();
    private final List<BackingSpec> backings = new ArrayList<>();
    private CacheSet set;
    private boolean closed;

    /** Runs once the files are ready and before recovery starts (serve binds its admin endpoint there). */
    @FunctionalInterface
    public interface BeforeRecovery {
        /** @throws HostException to refuse the open, with the message for the user */
        void run(RealLoop loop) throws HostException;
    }

    private CacheHost(HostFiles files, String loopName, Consumer<String> log) {
        this.files = files;
        this.log = log;
        this.loop = new RealLoop(loopName);
    }

    /**
     * Opens (or creates and formats) the files and the cache set and applies the knobs. On failure everything
     * already opened is closed again.
     *
     * @param loopName the loop thread's name
     * @param log told one line per notable step (files created, formatting), without a prefix
     * @param formatProgress told the fraction done in [0, 1] while a new cache is formatted
     * @throws HostException with the message for the user (the engine's own message for open errors)
     */
    public static CacheHost open(HostFiles files, String loopName, Consumer<String> log,
                                 DoubleConsumer formatProgress) throws HostException {
        return open(files, loopName, log, formatProgress, new RecoveryProgress(), loop -> { });
    }

    /**
     * {@link #open(HostFiles, String, Consumer, DoubleConsumer)} that reports recovery's progress to
     * {@code recovery} (its loop-thread rule applies) and runs {@code beforeRecovery} just before recovery starts.
     */
    public static CacheHost open(HostFiles files, String loopName, Consumer<String> log, DoubleConsumer formatProgress,
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

    /** The cache set (loop-thread rule applies). */
    public CacheSet cacheSet() {
        return set;
    }

    /** The loop that owns the cache set. */
    public RealLoop loop() {
        return loop;
    }

    /** The cache device. */
    public FileDevice cacheDevice() {
        return (FileDevice) devices.get(0);
    }

    /** The backing devices with their export names, in volume order. */
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
        openFiles(fresh);
        if (fresh) {
            format(formatProgress);
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
    }

    /**
     * Opens the backing stores first, then the cache file, which goes first in {@link #devices}. With a new cache,
     * existing backing files are checked first, NBD stores opened next (an open writes nothing), then S3 volumes (an
     * open may create the volume and takes its owner record), so that a refusal (an unreachable server, a store too
     * small, one that holds blockcache metadata: {@link MetadataGuard}, one another cache owns) comes before any file
     * is created and, as far as can be, before anything is written. What a new cache's S3 opens wrote before a later
     * refusal is taken back ({@link S3Backing#withdraw}).
     */
    private void openFiles(boolean fresh) throws HostException {
        // 512-byte logical blocks: the volume passes sector-aligned requests straight down to both devices.
        FileDeviceOptions deviceOptions = FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(BlockDevice.SECTOR_BYTES);
        MetadataGuard guard = new MetadataGuard(files.cacheFile(), files.force());
        List<Map.Entry<String, BackingLocation>> all = List.copyOf(files.backings().entrySet());
        BlockDevice[] opened = new BlockDevice[all.size()];
        List<BlockDevice> backingDevices = new ArrayList<>();
        boolean opening = true;
        try {
            for (Map.Entry<String, BackingLocation> backing : all) {
                if (fresh && backing.getValue() instanceof BackingLocation.File file && Files.exists(file.path())) {
                    guard.checkFile(backing.getKey(), file.path());
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.Nbd nbd) {
                    opened[i] = openBackingNbd(all.get(i).getKey(), nbd, fresh, guard);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.S3 s3) {
                    opened[i] = openBackingS3(all.get(i).getKey(), s3, fresh, guard);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.File file) {
                    opened[i] = openBackingFile(all.get(i).getKey(), file.path(), fresh, deviceOptions);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                BlockDevice map = openMapFile(all.get(i).getKey(), deviceOptions);
                if (map != null) {
                    backingDevices.add(map);
                }
                backings.add(new BackingSpec(all.get(i).getKey(), opened[i]).withMapDevice(map));
            }
            devices.add(openOrCreate(files.cacheFile(), files.cacheSizeBytes(), fresh, deviceOptions));
            opening = false;
        } catch (IOException | UnsupportedOperationException e) {
            throw new HostException("cannot open the device files: " + e.getMessage());
        } finally {
            if (opening && fresh) {
                withdrawS3(backingDevices);
            }
            devices.addAll(backingDevices); // closed by close(), whatever happened
        }
    }

    /**
     * Takes back the volume objects and owner records that a new cache's S3 opens wrote, for a start refused before
     * anything was written through them; a failure to do so is one line in the log (the objects remain, and say so).
     */
    private void withdrawS3(List<BlockDevice> backingDevices) {
        for (BlockDevice device : backingDevices) {
            if (device instanceof S3Device s3) {
                try {
                    S3Backing.withdraw(s3);
                } catch (IOException e) {
                    log.accept("could not take back what the refused start wrote to an S3 volume: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The damage map file of export {@code name} with placement {@code file} (created sparse, the size of the default
     * header area, docs/WRITEBACK.md "Where the map lives"); null otherwise. With placement {@code backing} a map file
     * left from before is deleted: it would no longer be kept, and {@code check --damage} must not trust it.
     */
    private FileDevice openMapFile(String name, FileDeviceOptions options) throws IOException {
        if (files.dataDir() == null) {
            return null;
        }
        Path path = files.dataDir().resolve(DamageMapPlacement.fileName(name));
        if (files.damageMap() != DamageMapPlacement.FILE) {
            if (Files.deleteIfExists(path)) {
                log.accept("deleted the damage map file " + path + ": damage-map is " + files.damageMap().text()
                        + " now");
            }
            return null;
        }
        return openOrCreate(path, BackingHeader.DEFAULT_DATA_OFFSET_BYTES, !Files.exists(path), options);
    }

    private FileDevice openBackingFile(String name, Path path, boolean fresh, FileDeviceOptions options)
            throws IOException, HostException {
        boolean exists = Files.exists(path);
        if (!fresh && !exists) {
            throw new HostException("backing file " + path + " of export \"" + name + "\" is missing, but the cache "
                    + files.cacheFile() + " exists and may hold its dirty data; refusing to attach an empty file."
                    + " Restore the file or give its path with --backing " + name + "=FILE.");
        }
        if (fresh && exists) {
            log.accept("attaching the existing file " + path + " as export \"" + name
                    + "\"; its first 1 MiB becomes the blockcache backing header");
        }
        return openOrCreate(path, files.backingSizeBytes(), !exists, options);
    }

    private NbdDevice openBackingNbd(String name, BackingLocation.Nbd location, boolean fresh, MetadataGuard guard)
            throws HostException {
        NbdUri uri = location.uri();
        NbdDevice device;
        try {
            device = NbdDevice.open(loop, uri, NbdDevice.CONNECTIONS_DEFAULT, location.requestTimeoutNs());
        } catch (IOException e) {
            throw new HostException("cannot open the backing store of export \"" + name + "\": " + e.getMessage());
        }
        if (fresh) {
            refuseIfTooSmall(name, uri.toString(), device);
            refuseIfMetadata(name, uri.toString(), device, guard);
            log.accept("attaching " + uri + " as export \"" + name + "\" (" + device.sizeBytes() + " bytes, "
                    + device.connections() + " connections); its first 1 MiB becomes the blockcache backing header");
        }
        return device;
    }

    /**
     * Opens an S3 volume, owned by this cache (host and cache file); with a new cache a missing volume is created
     * with the backing size, as a missing backing file is.
     */
    private S3Device openBackingS3(String name, BackingLocation.S3 location, boolean fresh, MetadataGuard guard)
            throws HostException {
        S3Options options = location.options().withOwnerId(S3Options.ownerIdFor(files.cacheFile()));
        S3Backing.Create create = fresh ? new S3Backing.Create(files.backingSizeBytes(), randomUuid(),
                BackingHeader.DEFAULT_DATA_OFFSET_BYTES) : S3Backing.Create.NEVER;
        S3Device device;
        try {
            device = S3Backing.open(loop, location.uri(), options, create,
                    fresh ? guard.s3(name, location.display()) : S3Backing.AttachGuard.NONE, InstantSource.system(),
                    log);
        } catch (IOException e) {
            throw new HostException("cannot open the backing store of export \"" + name + "\": " + e.getMessage());
        }
        if (fresh) {
            if (device.sizeBytes() <= BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
                withdrawS3(List.of(device)); // refused just below: take back the owner record it took
            }
            refuseIfTooSmall(name, location.display(), device);
            log.accept("attaching " + location.display() + " as export \"" + name + "\" (" + device.sizeBytes()
                    + " bytes in chunks of " + device.writeUnitBytes() + " bytes); its first 1 MiB becomes the"
                    + " blockcache backing header");
        }
        return device;
    }

    /** Closes {@code device} and refuses it when its first bytes hold blockcache metadata (unless forced). */
    private void refuseIfMetadata(String name, String display, BlockDevice device, MetadataGuard guard)
            throws HostException {
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(ExistingMetadata.HEAD_BYTES, device.sizeBytes()));
        IoResult read = this.<IoResult>onLoop(done -> device.read(0, head, done::accept));
        try {
            if (!read.ok()) {
                throw new HostException("cannot read the backing store of export \"" + name + "\", " + display + ": "
                        + read.message());
            }
            guard.checkHead(name, display, head.array());
        } catch (HostException refused) {
            closeRefused(device);
            throw refused;
        }
    }

    /** Closes {@code device} and refuses it when it has no room for data after the backing header. */
    private void refuseIfTooSmall(String name, String display, BlockDevice device) throws HostException {
        if (device.sizeBytes() > BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
            return;
        }
        closeRefused(device);
        throw new HostException("the backing store of export \"" + name + "\", " + display + ", has "
                + device.sizeBytes() + " bytes: too small, it needs more than its "
                + BackingHeader.DEFAULT_DATA_OFFSET_BYTES + "-byte header");
    }

    private void closeRefused(BlockDevice device) throws HostException {
        this.<Boolean>onLoop(done -> {
            device.close();
            done.accept(true);
        });
    }

    private static UUID randomUuid() {
        SecureRandom random = new SecureRandom();
        return new UUID(random.nextLong(), random.nextLong());
    }

    private FileDevice openOrCreate(Path path, long sizeBytes, boolean create, FileDeviceOptions options)
            throws IOException {
        if (!create) {
            return FileDevice.open(loop, path, options);
        }
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        log.accept("creating " + path + " (" + size(sizeBytes) + ", sparse)");
        return FileDevice.create(loop, path, sizeBytes, options);
    }

    private static String size(long bytes) {
        return bytes % (1L << 30) == 0 ? (bytes >> 30) + " GiB"
                : bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    private void format(DoubleConsumer progress) throws HostException {
        log.accept("formatting " + files.cacheFile() + " for " + files.backings().keySet());
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
        return this.<IoResult>onLoop(done -> set.shutdown(done::accept));
    }

    /** Closes the devices and stops the loop (after {@link #shutdown}, or instead of it after a failure). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!devices.isEmpty() && loop.failure() == null) {
            try {
                this.<Boolean>onLoop(done -> {
                    devices.forEach(BlockDevice::close); // FileDevice.close must run on its loop
                    done.accept(true);
                });
            } catch (HostException e) {
                log.accept("closing the device files: " + e.getMessage());
            }
        }
        loop.close();
    }

    /** Runs an asynchronous operation on the loop and waits for the value it hands to {@code done}. */
    public <T> T onLoop(Consumer<Consumer<T>> operation) throws HostException {
        try {
            return LoopCalls.await(loop, operation, LOOP_STEP_TIMEOUT);
        } catch (LoopCalls.NoAnswer e) {
            throw new HostException(e.getMessage());
        }
    }
}

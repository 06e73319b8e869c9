package io.blockcache.cli;

import io.blockcache.admin.AdminEndpoint;
import io.blockcache.admin.AdminServer;
import io.blockcache.admin.NbdSnapshot;
import io.blockcache.admin.RecoveryAdmin;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Knob;
import io.blockcache.engine.Outcome;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.nbd.NbdServer;
import io.blockcache.nbd.NbdServerStats;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A running {@code serve}: the device files on a real loop, the cache set (formatted when new, recovered
 * when not), the NBD server and the admin API; and the orderly stop that leaves a clean superblock.
 *
 * <p>Thread rule: {@link #start} and {@link #stop} from threads other than the loop's (the main thread, the
 * shutdown hook, a test).
 */
final class ServeRuntime {
    /** How long format, open, shutdown or a device close may take before serve gives up on the loop. */
    static final Duration LOOP_STEP_TIMEOUT = Duration.ofSeconds(120);
    /** How long a stop waits for NBD requests in flight before shutting the cache set down anyway. */
    static final Duration IN_FLIGHT_WAIT = Duration.ofSeconds(10);

    private final ServeSettings settings;
    private final PrintWriter err;
    private final RealLoop loop = new RealLoop("blockcache-loop");
    private final List<BlockDevice> devices = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private CacheSet set;
    private AdminServer admin;
    /** Listens from before recovery on; handed to {@link #admin} once the cache set is open. */
    private AdminEndpoint adminEndpoint;
    private final RecoveryProgress recovery = new RecoveryProgress();
    private NbdServer nbd;
    private boolean stopping;
    private volatile boolean shutdownClean;

    private ServeRuntime(ServeSettings settings, PrintWriter err) {
        this.settings = settings;
        this.err = err;
    }

    /**
     * Opens (or creates and formats) the devices, opens the cache set, applies the configured knobs and
     * starts both listeners. On failure everything already opened is closed again.
     *
     * @throws ServeException with the message for the user (the engine's own message for open errors)
     */
    static ServeRuntime start(ServeSettings settings, PrintWriter err) throws ServeException {
        ServeRuntime runtime = new ServeRuntime(settings, err);
        try {
            runtime.startAll();
            return runtime;
        } catch (ServeException | RuntimeException e) {
            runtime.closeDevicesAndLoop();
            throw e;
        }
    }

    /** The cache set, for tests (loop-thread rule applies). */
    CacheSet cacheSet() {
        return set;
    }

    /** The loop, for tests and for noticing a fail-stop. */
    RealLoop loop() {
        return loop;
    }

    /** Where NBD listens, or null if this build has no NBD server. */
    InetSocketAddress nbdAddress() {
        return nbd == null ? null : nbd.address();
    }

    /** Where the admin API listens. */
    InetSocketAddress adminAddress() {
        return adminEndpoint.address();
    }

    /** How far the open got (loop-thread rule applies), for tests. */
    RecoveryProgress recovery() {
        return recovery;
    }

    private void startAll() throws ServeException {
        CacheSetOptions options = CacheSetOptions.defaults().withMode(settings.mode());
        boolean fresh = !Files.exists(settings.cacheFile());
        List<BackingSpec> backings = openFiles(fresh);
        FileDevice cacheDevice = (FileDevice) devices.get(0);
        if (fresh) {
            format(cacheDevice, backings, options);
        }
        try {
            // Listen before recovery, so that a long open answers /api/stats with its progress (RecoveryAdmin).
            adminEndpoint = AdminEndpoint.bind(settings.adminListen(), new RecoveryAdmin(loop, recovery));
        } catch (IOException e) {
            throw new ServeException("cannot listen for the admin API on " + settings.adminListen() + ": " + e);
        }
        Outcome<CacheSet> opened = onLoop(done -> CacheSet.open(loop, cacheDevice, backings, options, recovery,
                done));
        if (!opened.isOk()) {
            throw new ServeException("cannot open the cache set in " + settings.cacheFile() + ": " + opened.error());
        }
        set = opened.value();
        applyKnobs();
        DrainJobFile drainJobs = new DrainJobFile(settings.dataDir().resolve(DrainJobFile.NAME));
        admin = new AdminServer(settings.adminListen(), set, cacheDevice, backings, drainJobs, warning -> {
            err.println("blockcache serve: " + warning);
            err.flush();
        });
        restoreDrains(drainJobs);
        admin.start(adminEndpoint);
        startNbd();
    }

    /** Takes up the drain jobs of the last run: running ones resume, paused ones stay paused (logged either way). */
    private void restoreDrains(DrainJobFile drainJobs) throws ServeException {
        List<io.blockcache.admin.DrainJobRecord> saved;
        try {
            Files.createDirectories(drainJobs.path().toAbsolutePath().getParent());
            saved = drainJobs.read();
        } catch (IOException e) {
            throw new ServeException("cannot read the drain jobs in " + drainJobs.path() + ": " + e.getMessage()
                    + " (move the file away to start without them)");
        }
        for (String line : admin.restoreDrains(saved)) {
            err.println("blockcache serve: " + line);
        }
        err.flush();
    }

    private List<BackingSpec> openFiles(boolean fresh) throws ServeException {
        // 512-byte logical blocks: the volume passes sector-aligned requests straight down to both devices.
        FileDeviceOptions deviceOptions = FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(BlockDevice.SECTOR_BYTES);
        List<BackingSpec> backings = new ArrayList<>();
        try {
            devices.add(openOrCreate(settings.cacheFile(), settings.cacheSizeBytes(), fresh, deviceOptions));
            for (Map.Entry<String, Path> backing : settings.backings().entrySet()) {
                boolean exists = Files.exists(backing.getValue());
                if (!fresh && !exists) {
                    throw new ServeException("backing file " + backing.getValue() + " of export \"" + backing.getKey()
                            + "\" is missing, but the cache " + settings.cacheFile() + " exists and may hold its dirty"
                            + " data; refusing to attach an empty file. Restore the file or give its path with"
                            + " --backing " + backing.getKey() + "=FILE.");
                }
                if (fresh && exists) {
                    err.println("blockcache serve: attaching the existing file " + backing.getValue() + " as export \""
                            + backing.getKey() + "\"; its first 1 MiB becomes the blockcache backing header");
                }
                FileDevice device = openOrCreate(backing.getValue(), settings.backingSizeBytes(), !exists,
                        deviceOptions);
                devices.add(device);
                backings.add(new BackingSpec(backing.getKey(), device));
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new ServeException("cannot open the device files: " + e.getMessage());
        }
        return backings;
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
        err.println("blockcache serve: creating " + path + " (" + StatsTable.bytes(sizeBytes) + ", sparse)");
        return FileDevice.create(loop, path, sizeBytes, options);
    }

    private void format(FileDevice cacheDevice, List<BackingSpec> backings, CacheSetOptions options)
            throws ServeException {
        err.println("blockcache serve: formatting " + settings.cacheFile() + " for " + settings.backings().keySet());
        // UUIDs must differ between cache sets; the engine takes them from a Prng, so seed it unpredictably
        // (the CLI is outside the deterministic engine).
        Prng ids = new Prng(new java.security.SecureRandom().nextLong());
        ProgressLine progress = new ProgressLine(err, "blockcache serve: formatting", ProgressLine.stderrIsTerminal());
        Outcome<Void> formatted = onLoop(done -> CacheSet.format(loop, cacheDevice, backings, options, ids,
                progress, done));
        if (!formatted.isOk()) {
            throw new ServeException("formatting " + settings.cacheFile() + " failed: " + formatted.error()
                    + " (delete the new files before retrying)");
        }
    }

    private void applyKnobs() throws ServeException {
        for (Map.Entry<String, String> knob : settings.knobs().entrySet()) {
            String problem = this.<String>onLoop(done -> {
                Knob found = set.knobs().find(knob.getKey());
                if (found == null) {
                    done.accept("no knob named \"" + knob.getKey() + "\"; knobs: "
                            + set.knobs().list().stream().map(Knob::name).toList());
                    return;
                }
                try {
                    found.set(knob.getValue());
                    done.accept(null);
                } catch (IllegalArgumentException refused) {
                    done.accept(refused.getMessage() + " (" + found.description() + ")");
                }
            });
            if (problem != null) {
                throw new ServeException("config knob." + knob.getKey() + "=" + knob.getValue() + ": " + problem);
            }
        }
    }

    private void startNbd() throws ServeException {
        Map<String, Volume> exports = new LinkedHashMap<>();
        for (String name : set.exportNames()) {
            exports.put(name, set.volume(name));
        }
        String memoryProblem = NbdLimitSettings.directMemoryProblem(settings.nbdLimits());
        if (memoryProblem != null) {
            throw new ServeException(memoryProblem);
        }
        try {
            nbd = new NbdServer(settings.nbdListen(), exports, loop, settings.nbdLimits(), line -> {
                err.println("blockcache serve: " + line);
                err.flush();
            });
            nbd.start();
        } catch (IOException e) {
            throw new ServeException("cannot listen for NBD on " + settings.nbdListen() + ": " + e);
        }
        admin.nbdCounters(() -> nbdSnapshot(nbd.stats()));
    }

    private static NbdSnapshot nbdSnapshot(NbdServerStats s) {
        return new NbdSnapshot(s.connectionsOpen(), s.connectionsAccepted(), s.refusedConnectionsMax(),
                s.refusedAddressMax(), s.handshakeTimeouts(), s.idleTimeouts(), s.replyStallTimeouts(),
                s.protocolErrors(), s.requestsInFlight(), s.bufferBytesMax(), s.bufferBytesInUse(),
                s.bufferBytesInUsePeak(), s.bufferWaits(), s.allocationFailures(), s.connectionsOutOfMemory());
    }

    /**
     * Stops in order: no new NBD connections, wait (bounded) for requests in flight, stop the admin API,
     * shut the cache set down (journal committed, checkpoint, clean flag), close the NBD connections, the
     * devices and the loop. Idempotent; later callers wait for the first.
     *
     * @return true if the cache set was shut down cleanly
     */
    boolean stop() {
        synchronized (this) {
            if (stopping) {
                awaitStopped();
                return shutdownClean;
            }
            stopping = true;
        }
        try {
            if (nbd != null) {
                nbd.stopAccepting();
                if (!nbd.awaitIdle(IN_FLIGHT_WAIT)) {
                    err.println("blockcache serve: NBD requests still in flight after " + IN_FLIGHT_WAIT.toSeconds()
                            + " s; shutting down anyway (they will get errors)");
                }
            }
            if (admin != null) {
                admin.close();
            }
            if (set != null) {
                IoResult result = this.<IoResult>onLoop(done -> set.shutdown(done::accept));
                shutdownClean = result.ok();
                if (!result.ok()) {
                    err.println("blockcache serve: clean shutdown failed: " + result.message()
                            + "; the next start recovers from the journal");
                }
            }
        } catch (ServeException e) {
            err.println("blockcache serve: " + e.getMessage() + "; the next start recovers from the journal");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (nbd != null) {
                nbd.close();
            }
            closeDevicesAndLoop();
            err.flush();
            stopped.countDown();
        }
        return shutdownClean;
    }

    /** Waits until {@link #stop} has finished. */
    void awaitStopped() {
        boolean interrupted = false;
        while (true) {
            try {
                stopped.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to {@code timeout} for {@link #stop} to finish; true if it has. */
    boolean awaitStopped(Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void closeDevicesAndLoop() {
        if (adminEndpoint != null) {
            adminEndpoint.close(); // after a failed start too (idempotent after the admin server closed it)
        }
        if (!devices.isEmpty() && loop.failure() == null) {
            try {
                this.<Boolean>onLoop(done -> {
                    devices.forEach(BlockDevice::close); // FileDevice.close must run on its loop
                    done.accept(true);
                });
            } catch (ServeException e) {
                err.println("blockcache serve: closing the device files: " + e.getMessage());
            }
        }
        loop.close();
    }

    /** Runs an asynchronous operation on the loop and waits for the value it hands to {@code done}. */
    private <T> T onLoop(Consumer<Consumer<T>> operation) throws ServeException {
        try {
            return LoopCalls.await(loop, operation, LOOP_STEP_TIMEOUT);
        } catch (LoopCalls.NoAnswer e) {
            throw new ServeException(e.getMessage());
        }
    }

    /** A start or stop problem, with the message for the user. */
    static final class ServeException extends Exception {
        ServeException(String message) {
            super(message);
        }
    }
}

package io.blockcache.cli;

import io.blockcache.admin.AdminEndpoint;
import io.blockcache.admin.AdminGuard;
import io.blockcache.admin.AdminToken;
import io.blockcache.admin.AdminServer;
import io.blockcache.admin.RecoveryAdmin;
import io.blockcache.admin.NbdSnapshot;
import io.blockcache.admin.VolumeControl;
import io.blockcache.device.IoResult;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Pinning;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.host.CacheHost;
import io.blockcache.host.FileSpaces;
import io.blockcache.host.HostException;
import io.blockcache.host.HostFiles;
import io.blockcache.log.EventName;
import io.blockcache.log.Level;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.RealLoop;
import io.blockcache.nbd.NbdServer;
import io.blockcache.nbd.NbdServerStats;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A running {@code serve}: the cache set on its files ({@link CacheHost}: formatted when new, recovered when
 * not), the NBD server and the admin API; and the orderly stop that leaves a clean superblock.
 *
 * <p>Thread rule: {@link #start} and {@link #stop} from threads other than the loop's (the main thread, the
 * shutdown hook, a test).
 */
final class ServeRuntime {
    /** How long a stop waits for NBD requests in flight before shutting the cache set down anyway. */
    static final Duration IN_FLIGHT_WAIT = Duration.ofSeconds(10);

    private final ServeSettings settings;
    /** {@code --force}: a new cache may overwrite backing stores that hold blockcache metadata. */
    private final boolean force;
    private final PrintWriter err;
    /** The events this runtime tells the operator, on {@link #err} ({@code --log-format}). */
    private final EventLog log;
    /** Whether {@link #stop} closes {@link #log}: not when it outlives this runtime (a replication member's). */
    private final boolean closesLog;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private CacheHost host;
    private AdminServer admin;
    /** The pinned ranges saved for the next start (docs/CACHING.md "Pinning"). */
    private PinFile pinFile;
    /** Listens from before recovery on; handed to {@link #admin} once the cache set is open. */
    private AdminEndpoint adminEndpoint;
    private final RecoveryProgress recovery = new RecoveryProgress();
    private NbdServer nbd;
    private WritebackErrorWatch errorWatch;
    /** Bound before the files are opened; handed to {@link #nbd} once the cache set serves. */
    private ServerSocketChannel nbdListener;
    private boolean stopping;
    private volatile boolean shutdownClean;
    /** Runs after the cache set opened and before NBD serves (a replicated volume's replay); may refuse the start. */
    private final BeforeServing beforeServing;
    /** Null, or the fence of every backing device (a replicated volume's lease: {@code device.FencedDevice}). */
    private final java.util.function.Supplier<String> backingFence;

    /** A step between the open and the first NBD client. */
    @FunctionalInterface
    interface BeforeServing {
        /** @throws ServeException to refuse the start (everything opened is closed again) */
        void run(CacheHost host) throws ServeException;
    }

    private ServeRuntime(ServeSettings settings, boolean force, PrintWriter err, EventLog log, boolean closesLog,
                         BeforeServing beforeServing, java.util.function.Supplier<String> backingFence) {
        this.settings = settings;
        this.force = force;
        this.err = err;
        this.log = log;
        this.closesLog = closesLog;
        this.beforeServing = beforeServing;
        this.backingFence = backingFence;
    }

    /**
     * Opens (or creates and formats) the devices, opens the cache set, applies the configured knobs and
     * starts both listeners. On failure everything already opened is closed again.
     *
     * @throws ServeException with the message for the user (the engine's own message for open errors)
     */
    static ServeRuntime start(ServeSettings settings, PrintWriter err) throws ServeException {
        return start(settings, false, err);
    }

    /**
     * As {@link #start(ServeSettings, PrintWriter)}; with {@code force} a new cache overwrites backing stores that
     * hold blockcache metadata instead of refusing them ({@code host.MetadataGuard}).
     */
    static ServeRuntime start(ServeSettings settings, boolean force, PrintWriter err) throws ServeException {
        return start(settings, force, err, EventLog.of(err, LogFormat.TEXT));
    }

    /** As {@link #start(ServeSettings, boolean, PrintWriter)}, its events in {@code log} ({@code --log-format}). */
    static ServeRuntime start(ServeSettings settings, boolean force, PrintWriter err, EventLog log)
            throws ServeException {
        return start(settings, force, err, log, true, host -> { }, null);
    }

    /**
     * As {@link #start(ServeSettings, boolean, PrintWriter)}, running {@code beforeServing} before NBD serves, with the
     * backing devices behind {@code backingFence} (null: none), its events in {@code log}, which outlives it (its
     * stop does not close it).
     */
    static ServeRuntime start(ServeSettings settings, boolean force, PrintWriter err, EventLog log,
                              BeforeServing beforeServing, java.util.function.Supplier<String> backingFence)
            throws ServeException {
        return start(settings, force, err, log, false, beforeServing, backingFence);
    }

    private static ServeRuntime start(ServeSettings settings, boolean force, PrintWriter err, EventLog log,
                                      boolean closesLog, BeforeServing beforeServing,
                                      java.util.function.Supplier<String> backingFence) throws ServeException {
        ServeRuntime runtime = new ServeRuntime(settings, force, err, log, closesLog, beforeServing, backingFence);
        try {
            runtime.startAll();
            log.tick(); // the start's events are out when it returns
            return runtime;
        } catch (ServeException | RuntimeException e) {
            runtime.closeAll();
            if (closesLog) {
                log.close(); // what was queued is out before the caller reports the refusal
            }
            throw e;
        }
    }

    /** The cache set, for tests (loop-thread rule applies). */
    CacheSet cacheSet() {
        return host.cacheSet();
    }

    /** The loop, for tests and for noticing a fail-stop. */
    RealLoop loop() {
        return host.loop();
    }

    /** The host of the cache set (knobs are applied through it on a reload). */
    CacheHost host() {
        return host;
    }

    /** Answers {@code /api/cluster} through {@code control} (a replication group's member, {@link ClusterServe}). */
    void cluster(io.blockcache.admin.ClusterControl control) {
        admin.cluster(control);
    }

    /** Serves {@code POST /api/reload} with {@code reloader}. */
    void setReloader(io.blockcache.admin.Reloader reloader) {
        admin.setReloader(reloader);
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

    /** The settings this runtime started with. */
    ServeSettings settings() {
        return settings;
    }

    private void startAll() throws ServeException {
        HostFiles files = new HostFiles(settings.cacheFile(), settings.cacheSizeBytes(), settings.backings(),
                settings.backingSizeBytes(),
                CacheSetOptions.defaults().withMode(settings.mode()).withBackingFence(backingFence), settings.knobs(),
                settings.damageMap(), settings.dataDir(), force, settings.cacheSizeGiven(), settings.remote());
        boolean terminal = ProgressLine.stderrIsTerminal();
        ProgressLine progress = terminal ? new ProgressLine(err, "blockcache serve: formatting", true)
                : new ProgressLine(err, "formatting", false, line -> log.log(EventName.HOST_FORMAT_PROGRESS, line));
        // Both ports are bound before any file is created, formatted or locked, so that a port in use refuses the
        // start with nothing written (a half-made cache would make the next start refuse instead).
        bindListeners();
        try {
            host = CacheHost.open(files, "blockcache-loop", log, progress,
                    recovery, loop -> {
                        // Answer with recovery's progress from here on, so that a long open shows how far it got.
                        adminEndpoint.answerWith(new RecoveryAdmin(loop, recovery));
                    });
        } catch (HostException e) {
            throw new ServeException(e.getMessage());
        }
        DrainJobFile drainJobs = new DrainJobFile(settings.dataDir().resolve(DrainJobFile.NAME));
        admin = new AdminServer(settings.adminListen(), host.cacheSet(), host.cacheDevice(), host.backings(),
                drainJobs, log);
        restoreDrains(drainJobs);
        pinFile = new PinFile(settings.dataDir().resolve(PinFile.NAME));
        restorePins();
        for (String warning : FileSpaces.warnings(FileSpaces.measure(files))) {
            log.now(EventName.FILES_SPACE_LOW, warning);
        }
        admin.fileSpaces(() -> FileSpaces.measure(files));
        admin.start(adminEndpoint);
        beforeServing.run(host);
        startNbd();
        errorWatch = new WritebackErrorWatch(this::writebackErrors, log).start();
    }

    private void bindListeners() throws ServeException {
        try {
            adminEndpoint = AdminEndpoint.bind(settings.adminListen(), RecoveryAdmin.opening(), adminGuard());
        } catch (IOException e) {
            throw new ServeException("cannot listen for the admin API on "
                    + ServeCommand.hostPort(settings.adminListen()) + ": " + listenProblem(e)
                    + "; nothing was created or changed");
        }
        try {
            nbdListener = ServerSocketChannel.open().bind(settings.nbdListen());
        } catch (IOException e) {
            throw new ServeException("cannot listen for NBD on " + ServeCommand.hostPort(settings.nbdListen()) + ": "
                    + listenProblem(e) + "; nothing was created or changed");
        }
    }

    private static String listenProblem(IOException e) {
        if (e instanceof java.net.BindException) {
            String message = String.valueOf(e.getMessage());
            return message.contains("in use") ? "the address is already in use (another serve, or another program,"
                    + " listens there: choose another port or stop it)"
                    : message.contains("assign") ? "this host has no such address" : message;
        }
        return e.toString();
    }

    /** The admin API's door: the token if one is configured; refusals logged (rate-limited) on stderr. */
    private AdminGuard adminGuard() {
        return adminGuard(settings, log);
    }

    /** The admin API's door for {@code settings}: the token if one is configured; refusals logged in {@code log}. */
    static AdminGuard adminGuard(ServeSettings settings, EventLog log) {
        AdminToken token = settings.access().adminToken();
        return token == null ? AdminGuard.OPEN : new AdminGuard(token, line -> log.log(EventName.ADMIN_REFUSED,
                line));
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
            log.now(EventName.DRAIN_RESTORED, line);
        }
    }

    /**
     * Pins again what {@link PinFile} saved (docs/CACHING.md "Pinning"), before any client connects; a pin that no
     * longer applies (its volume removed, the volume or the cap smaller) is dropped with a warning and the file
     * rewritten without it.
     */
    private void restorePins() throws ServeException {
        List<PinFile.Pin> saved;
        try {
            saved = pinFile.read();
        } catch (IOException e) {
            throw new ServeException("cannot read the pinned ranges in " + pinFile.path() + ": " + e.getMessage()
                    + " (move the file away to start without them)");
        }
        if (saved.isEmpty()) {
            return;
        }
        try {
            List<String> lines = host.<List<String>>onLoop(done -> {
                Pinning pinning = new Pinning(host.cacheSet());
                List<String> said = new ArrayList<>();
                for (PinFile.Pin pin : saved) {
                    String refused = pinning.pin(pin.volume(), pin.offsetBytes(), pin.lengthBytes());
                    said.add((refused == null ? "+" : "-") + "volume " + pin.volume() + " bytes "
                            + pin.offsetBytes() + "+" + pin.lengthBytes()
                            + (refused == null ? " pinned again" : " not pinned: " + refused));
                }
                done.accept(said);
            });
            boolean dropped = false;
            for (String line : lines) {
                dropped |= line.startsWith("-");
                log.now(line.startsWith("+") ? EventName.PIN_RESTORED : EventName.PIN_DROPPED, line.substring(1));
            }
            if (dropped) {
                ServeVolumes.save(pinFile, host.<List<Pinning.Range>>onLoop(done -> done.accept(
                        new Pinning(host.cacheSet()).ranges())));
            }
        } catch (HostException | VolumeControl.Refused e) {
            throw new ServeException(e.getMessage());
        }
    }

    private void startNbd() throws ServeException {
        Map<String, Volume> exports = new LinkedHashMap<>();
        for (String name : host.cacheSet().exportNames()) {
            exports.put(name, host.cacheSet().volume(name));
        }
        String memoryProblem = NbdLimitSettings.directMemoryProblem(settings.nbdLimits());
        if (memoryProblem != null) {
            throw new ServeException(memoryProblem);
        }
        try {
            nbd = new NbdServer(settings.nbdListen(), exports, host.loop(), settings.nbdLimits(), settings.tls(),
                    settings.access().exports(), log);
            nbd.start(nbdListener);
        } catch (IOException e) {
            throw new ServeException("cannot listen for NBD on " + settings.nbdListen() + ": " + e);
        }
        admin.nbdCounters(() -> nbdSnapshot(nbd.stats()));
        admin.setVolumeControl(new ServeVolumes(host, nbd, admin, pinFile));
    }

    private static NbdSnapshot nbdSnapshot(NbdServerStats s) {
        return new NbdSnapshot(s.connectionsOpen(), s.connectionsAccepted(), s.refusedConnectionsMax(),
                s.refusedAddressMax(), s.handshakeTimeouts(), s.idleTimeouts(), s.replyStallTimeouts(),
                s.protocolErrors(), s.requestsInFlight(), s.bufferBytesMax(), s.bufferBytesInUse(),
                s.bufferBytesInUsePeak(), s.bufferWaits(), s.allocationFailures(), s.connectionsOutOfMemory(),
                s.tlsHandshakes(), s.tlsHandshakeFailures(), s.tlsRequiredRefusals(), s.tlsOffRefusals(),
                s.exportRefusalsAddress(), s.exportRefusalsPskUser());
    }

    /**
     * Stops in order: no new NBD connections, wait (bounded) for requests in flight, stop the admin API,
     * shut the cache set down (journal committed, checkpoint, clean flag), close the NBD connections, the
     * devices and the loop. Idempotent; later callers wait for the first.
     *
     * @return true if the cache set was shut down cleanly
     */
    boolean stop() {
        return stop(true);
    }

    /**
     * As {@link #stop()}; without {@code shutdown} the cache set is closed without its clean shutdown (no journal
     * commit, no checkpoint): a replication group's member that stops serving leaves a cache no one will open again
     * (the next term formats a fresh one), and its backing store is fenced already.
     */
    boolean stop(boolean shutdown) {
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
                    log.now(EventName.SERVE_STOP_PROBLEM, "NBD requests still in flight after "
                            + IN_FLIGHT_WAIT.toSeconds() + " s; shutting down anyway (they will get errors)");
                }
            }
            if (admin != null) {
                admin.close();
            }
            IoResult result = shutdown ? host.shutdown() : IoResult.OK;
            shutdownClean = shutdown && result.ok();
            if (!result.ok()) {
                // A cache file that changed under us has its own what-next in the message.
                boolean cacheChanged = host.cacheDevice().changeFound() != null;
                log.now(LogEvent.of(Level.ERROR, EventName.SERVE_STOP_PROBLEM, "clean shutdown failed: "
                        + result.message() + (cacheChanged ? "" : "; the next start recovers from the journal")));
            }
        } catch (HostException e) {
            log.now(LogEvent.of(Level.ERROR, EventName.SERVE_STOP_PROBLEM, e.getMessage()
                    + "; the next start recovers from the journal"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeAll();
            if (closesLog) {
                log.close(); // the counts of floods not yet reported
            } else {
                log.tick();
            }
            err.flush();
            stopped.countDown();
        }
        return shutdownClean;
    }

    /** Each volume's writeback errors, read on the loop. */
    private List<WritebackErrorWatch.Errors> writebackErrors() throws HostException {
        return host.onLoop(done -> {
            List<WritebackErrorWatch.Errors> all = new ArrayList<>();
            for (String name : host.cacheSet().exportNames()) {
                io.blockcache.writeback.Writeback writeback = host.cacheSet().writeback(name);
                io.blockcache.writeback.WritebackCounters counters = writeback.counters();
                all.add(new WritebackErrorWatch.Errors(name, counters.readErrors() + counters.checksumErrors()
                        + counters.writeErrors() + counters.flushErrors(), writeback.lastError()));
            }
            done.accept(all);
        });
    }

    private void closeAll() {
        if (errorWatch != null) {
            errorWatch.close();
        }
        if (nbd != null) {
            nbd.close();
        } else if (nbdListener != null) {
            try {
                nbdListener.close();
            } catch (IOException e) {
                log.now(EventName.SERVE_STOP_PROBLEM, "closing the NBD listener: " + e.getMessage());
            }
        }
        if (admin != null && !stopping) {
            admin.close();
        }
        if (adminEndpoint != null) {
            adminEndpoint.close(); // after a failed start too (idempotent after the admin server closed it)
        }
        if (host != null) {
            host.close();
        }
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

    /** A start or stop problem, with the message for the user. */
    static final class ServeException extends Exception {
        ServeException(String message) {
            super(message);
        }
    }
}

package io.blockcache.cli;

import io.blockcache.log.EventName;
import io.blockcache.log.Level;
import io.blockcache.log.LogEvent;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache serve}: serves cached volumes over NBD, with the admin API beside it.
 *
 * <p>With no arguments it runs the embedded default: {@code ./data/cache.img} (1 GiB) caching a sparse
 * {@code ./data/backing.img} (8 GiB), created and formatted when absent and recovered when present, exported
 * as {@code default} on 127.0.0.1:10809, admin API on 127.0.0.1:10810. SIGTERM or SIGINT stops it cleanly
 * (a JVM shutdown hook runs {@link ServeRuntime#stop}) and exits 0; after {@code kill -9} the next start
 * recovers from the journal. Exit 1 when the cache cannot be opened or served (the engine's message says
 * why), 2 for bad usage.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, defaultValueProvider = ConfigDefaults.class,
        description = {"Serve cached volumes over NBD and the admin API over HTTP.",
                "With no arguments: ./data/cache.img (1 GiB) caches ./data/backing.img (8 GiB, sparse), export"
                        + " 'default' on 127.0.0.1:10809, admin API on 127.0.0.1:10810."})
final class ServeCommand implements Callable<Integer> {
    /** How often the main thread checks that the loop is still alive while serving. */
    private static final Duration LIVENESS_CHECK_PERIOD = Duration.ofSeconds(1);

    @Spec
    private CommandSpec spec;

    @Mixin
    ServeOptions options;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        EventLog log = EventLog.of(err, options.logFormat);
        LibraryLog.forwardTo(log);
        String unbound = LibraryLog.bindingProblem();
        if (unbound != null) {
            log.now(EventName.LIB_WARNING, unbound);
        }
        ServeSettings settings;
        try {
            settings = ServeSettings.of(options);
        } catch (IllegalArgumentException e) {
            log.now(EventName.SERVE_START_FAILED, e.getMessage());
            return 2;
        }
        if (options.printJvmOptions) {
            int s3Backings = (int) settings.backings().values().stream()
                    .filter(location -> location instanceof io.blockcache.backing.BackingLocation.S3).count();
            // A damage map kept in a file is one more file device per backing, with its own I/O buffers.
            int mapFiles = settings.damageMap() == io.blockcache.host.DamageMapPlacement.FILE
                    ? settings.backings().size() : 0;
            JvmSizing sizing = JvmSizing.forCache(cacheBytes(settings), settings.backings().size() + mapFiles,
                    s3Backings, JvmSizing.journaledVolumes(settings.knobs()), settings.nbdLimits());
            String warning = sizing.ramWarning(JvmSizing.physicalRamBytes());
            if (warning != null) {
                log.now(EventName.SERVE_MEMORY_LOW, warning);
            }
            out.println(String.join(" ", sizing.options()));
            out.flush();
            return 0;
        }
        if (options.nodeId != null || options.peers != null) {
            return ClusterServe.run(settings, options.nodeId, options.peers, out, err, log);
        }
        ServeRuntime runtime;
        try {
            runtime = ServeRuntime.start(settings, options.force, err, log);
        } catch (ServeRuntime.ServeException e) {
            log.now(EventName.SERVE_START_FAILED, e.getMessage());
            return 1;
        }
        SystemdNotify systemd = SystemdNotify.fromEnvironment();
        if (options.config != null) {
            // A reload parses these arguments again, so the file is read anew and the flags still win over it.
            runtime.setReloader(new ConfigReload(spec.commandLine().getParseResult().expandedArgs(), options.config,
                    settings, runtime.host()));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            notify(systemd, log, "STOPPING=1", "STATUS=stopping: journal commit, checkpoint, clean shutdown");
            log.now(EventName.SERVE_STOPPING, "stopping (journal commit, checkpoint, clean shutdown)...");
            boolean clean = runtime.stop();
            log.now(LogEvent.of(clean ? Level.INFO : Level.ERROR, EventName.SERVE_STOPPED,
                    clean ? "stopped cleanly" : "stopped, not cleanly").with("clean", clean ? 1 : 0));
            out.flush();
            // A signal would otherwise end the JVM with 128+signal; a clean stop is a success.
            Runtime.getRuntime().halt(clean ? 0 : 1);
        }, "blockcache-shutdown"));
        warnIfAdminExposed(log, settings, runtime.adminAddress());
        printBanner(out, settings, runtime);
        // Recovery is done and both listeners are up: only now may systemd order dependent units after us.
        notify(systemd, log, "READY=1", "STATUS=serving " + settings.backings().keySet() + " on nbd://"
                + hostPort(runtime.nbdAddress()) + ", admin http://" + hostPort(runtime.adminAddress()));
        while (!runtime.awaitStopped(LIVENESS_CHECK_PERIOD)) {
            if (runtime.loop().failure() != null) {
                log.now(EventName.SERVE_FAIL_STOP, "the cache stopped on an internal error (fail-stop): "
                        + runtime.loop().failure());
                return 1; // System.exit runs the hook, which closes what it can and exits 1
            }
        }
        return 0;
    }

    private static void notify(SystemdNotify systemd, EventLog log, String... assignments) {
        String problem = systemd.notify(assignments);
        if (problem != null) {
            log.now(EventName.SYSTEMD_NOTIFY_FAILED, "telling systemd " + assignments[0] + " failed: " + problem);
        }
    }

    /**
     * The cache's size: the existing file's or block device's (it wins over --cache-size; FileChannel.size asks
     * the kernel for a block device's size), else the size a new file gets.
     */
    private static long cacheBytes(ServeSettings settings) {
        if (!java.nio.file.Files.exists(settings.cacheFile())) {
            return settings.cacheSizeBytes();
        }
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(settings.cacheFile())) {
            long existing = channel.size();
            return existing > 0 ? existing : settings.cacheSizeBytes();
        } catch (java.io.IOException e) {
            return settings.cacheSizeBytes(); // serve itself will say why it cannot open the file
        }
    }

    /**
     * The admin API has no TLS of its own: off loopback its token (or, under --insecure, its knobs) are open to the
     * network path. Allowed, since the operator chose it, but said once at start.
     */
    private static void warnIfAdminExposed(EventLog log, ServeSettings settings, InetSocketAddress admin) {
        if (admin.getAddress().isLoopbackAddress()) {
            return;
        }
        log.now(LogEvent.of(EventName.ADMIN_EXPOSED, "warning: the admin API listens on "
                + hostPort(admin) + " without TLS: "
                + (settings.access().adminToken() != null ? "its token crosses the network in clear text"
                : "anyone who reaches it can change the cache (--insecure, no token)")
                + "; keep it on 127.0.0.1 and use ssh -L, or a TLS proxy (docs/OPERATIONS.md §10)")
                .with("address", hostPort(admin)));
    }

    private static void printBanner(PrintWriter out, ServeSettings settings, ServeRuntime runtime) {
        InetSocketAddress nbd = runtime.nbdAddress();
        InetSocketAddress admin = runtime.adminAddress();
        String adminUrl = "http://" + hostPort(admin);
        out.println("blockcache serve: cache " + settings.cacheFile() + ", exports " + settings.backings().keySet());
        if (nbd != null && settings.tls().offered()) {
            out.println("NBD:   nbds://" + hostPort(nbd) + " (exports " + settings.backings().keySet() + "; TLS "
                    + settings.tls().mode().flagValue() + ", " + settings.tls().credentials().description() + ")");
            out.println("  nbdinfo 'nbds://" + hostPort(nbd) + "?tls-certificates=DIR' (or ?tls-psk-file=FILE)");
        } else if (nbd != null) {
            String first = settings.backings().keySet().iterator().next();
            out.println("NBD:   nbd://" + hostPort(nbd) + " (exports " + settings.backings().keySet() + ")");
            out.println("  nbdinfo nbd://" + hostPort(nbd));
            out.println("  sudo nbd-client " + nbd.getAddress().getHostAddress() + " " + nbd.getPort()
                    + " /dev/nbd0 -N " + first);
            out.println("  qemu-img info nbd://" + hostPort(nbd) + "/" + first);
        } else {
            out.println("NBD:   not available in this build");
        }
        out.println("admin: " + adminUrl + " (dashboard), " + adminUrl + "/api/stats, " + adminUrl + "/metrics");
        Path tokenFile = settings.access().adminTokenFile();
        if (tokenFile != null) {
            out.println("  token required: open " + adminUrl + "/#token=TOKEN; blockcache stats --admin "
                    + hostPort(admin) + " --admin-token-file " + tokenFile);
        } else {
            out.println("  blockcache stats --admin " + hostPort(admin));
        }
        settings.access().exports().forEach((name, access) ->
                out.println("  export " + name + " is served only to " + access.summary()));
        out.println("Stop with Ctrl-C or SIGTERM (clean shutdown).");
        out.flush();
    }

    static String hostPort(InetSocketAddress address) {
        String host = address.getAddress() == null ? address.getHostString() : address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}

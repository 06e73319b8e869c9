package io.blockcache.cli;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve cached volumes over NBD and the admin API over HTTP.",
                "With no arguments: ./data/cache.img (1 GiB) caches ./data/backing.img (8 GiB, sparse), export"
                        + " 'default' on 127.0.0.1:10809, admin API on 127.0.0.1:10810."})
final class ServeCommand implements Callable<Integer> {
    /** How often the main thread checks that the loop is still alive while serving. */
    private static final Duration LIVENESS_CHECK_PERIOD = Duration.ofSeconds(1);

    @Spec
    private CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Where the default files live (default: ./data).")
    private String dataDir;

    @Option(names = "--cache", paramLabel = "FILE", description = "Cache device file (default: DIR/cache.img).")
    private String cache;

    @Option(names = "--backing", paramLabel = "NAME=URI",
            description = "Export name and its backing store: a file or block device (PATH or file:PATH) or an NBD"
                    + " export (nbd://HOST[:PORT]/EXPORT); repeatable (default: default=DIR/backing.img).")
    private List<String> backings;

    @Option(names = "--cache-size", paramLabel = "SIZE", description = "Size of a new cache file (default: 1G).")
    private String cacheSize;

    @Option(names = "--backing-size", paramLabel = "SIZE",
            description = "Size of the export of a new backing file or S3 volume (default: 8G); the file is"
                    + " created sparse, 1 MiB larger for its header.")
    private String backingSize;

    @Option(names = "--nbd-listen", paramLabel = "HOST:PORT", description = "NBD address (default: 127.0.0.1:10809).")
    private String nbdListen;

    @Option(names = "--admin-listen", paramLabel = "HOST:PORT",
            description = "Admin API address (default: 127.0.0.1:10810).")
    private String adminListen;

    @Option(names = "--mode", paramLabel = "MODE",
            description = "Initial cache mode: writeback, writethrough, writearound or none (default: writeback).")
    private String mode;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Properties file with the long flags' names as keys, plus knob.NAME=VALUE lines.")
    private Path config;

    @Option(names = "--nbd-handshake-timeout", paramLabel = "DURATION",
            description = "Close NBD connections that have not finished the handshake by then (default: 10s).")
    private String nbdHandshakeTimeout;

    @Option(names = "--nbd-idle-timeout", paramLabel = "DURATION",
            description = "Close NBD connections idle this long; 0 or off: never (default: off).")
    private String nbdIdleTimeout;

    @Option(names = "--nbd-reply-timeout", paramLabel = "DURATION",
            description = "Close NBD connections whose client has not read a reply for this long; 0: never"
                    + " (default: 60s).")
    private String nbdReplyTimeout;

    @Option(names = "--nbd-keepalive", paramLabel = "DURATION",
            description = "TCP keepalive: first probe after this idle time; 0: off (default: 60s).")
    private String nbdKeepalive;

    @Option(names = "--nbd-connections-max", paramLabel = "N",
            description = "NBD connections served at once (default: 256).")
    private String nbdConnectionsMax;

    @Option(names = "--nbd-connections-per-address-max", paramLabel = "N",
            description = "NBD connections served at once from one client address (default: 64).")
    private String nbdConnectionsPerAddressMax;

    @Option(names = "--nbd-buffer-max", paramLabel = "SIZE",
            description = "Direct memory for NBD request and reply buffers over all connections; requests wait"
                    + " for it (default: 256M).")
    private String nbdBufferMax;

    @Option(names = "--allow-remote",
            description = "Allow non-loopback listen addresses; needs --tls=require and --admin-token-file (or"
                    + " --insecure).")
    private boolean allowRemote;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "The admin API's bearer token (one line, mode 600); every /api and /metrics request must"
                    + " send 'Authorization: Bearer TOKEN'.")
    private String adminTokenFile;

    @Option(names = "--allow-addresses", paramLabel = "NAME=RANGE[,RANGE...]",
            description = "Serve export NAME only to clients in these address ranges (CIDR, e.g."
                    + " default=10.0.0.0/8,::1/128); repeatable.")
    private List<String> allowAddresses;

    @Option(names = "--allow-psk-users", paramLabel = "NAME=USER[,USER...]",
            description = "Serve export NAME only to these PSK users (with --tls-psk); repeatable.")
    private List<String> allowPskUsers;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "The S3 endpoint for s3:// backings, e.g. http://127.0.0.1:9000 (MinIO, S3Proxy, Ceph RGW;"
                    + " path-style requests); default: AWS, with the AWS default region and credential chains.")
    private String s3Endpoint;

    @Option(names = "--nbd-backing-timeout", paramLabel = "DURATION",
            description = "How long the client of nbd:// backings waits for a reply before it gives the connection up,"
                    + " reconnects and replays (1s to 24h; default: 60s).")
    private String nbdBackingTimeout;

    @Option(names = "--take-over",
            description = "Take s3:// volumes that another cache owns: a deliberate failover (docs/SCALE.md).")
    private boolean takeOver;

    // A flag only, never a config key: kept in a config file it would overwrite a backing header at every start
    // with a new cache, long after the one occasion someone meant it.
    @Option(names = "--force",
            description = "With a new cache, overwrite backing stores that already hold blockcache metadata (a backing"
                    + " header of another cache set); without it they are refused.")
    private boolean force;

    @Option(names = "--print-jvm-options", hidden = true,
            description = "Print the JVM flags bin/blockcache runs this serve with (JvmSizing) and exit.")
    private boolean printJvmOptions;

    @Option(names = "--tls", paramLabel = "off|on|require",
            description = "NBD over TLS (NBD_OPT_STARTTLS): off, on (clients choose) or require (default: off).")
    private String tls;

    @Option(names = "--tls-certificates", paramLabel = "DIR",
            description = "X.509 credentials: DIR/server-cert.pem, DIR/server-key.pem (and DIR/ca-cert.pem).")
    private String tlsCertificates;

    @Option(names = "--tls-psk", paramLabel = "FILE",
            description = "Pre-shared keys: FILE of username:hexkey lines (as psktool writes).")
    private String tlsPsk;

    @Option(names = "--tls-verify-peer",
            description = "Require client certificates that chain to DIR/ca-cert.pem (with --tls-certificates).")
    private boolean tlsVerifyPeer;

    @Option(names = "--damage-map", paramLabel = "off|backing|file",
            description = "Where each backing's damage map lives: off, backing (on the device; survives the node, but "
                    + "writes into new regions fail while it is away) or file (DIR/damage-map-NAME.img; default).")
    private String damageMap;

    @Option(names = "--insecure",
            description = "Serve a non-loopback address without --tls=require or an admin token (a trusted network"
                    + " only).")
    private boolean insecure;

    @picocli.CommandLine.Mixin
    private ClusterOptions cluster = new ClusterOptions();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ServeSettings settings;
        ServeSettings.Flags flags = new ServeSettings.Flags(dataDir, cache, backings, cacheSize, backingSize,
                nbdListen, adminListen, mode, config, allowRemote, nbdLimitFlags(),
                new TlsFlagSettings.Flags(tls, tlsCertificates, tlsPsk, tlsVerifyPeer, insecure),
                new AccessSettings.Flags(adminTokenFile, allowAddresses, allowPskUsers),
                new ServeSettings.BackingFlags(s3Endpoint, takeOver, nbdBackingTimeout), damageMap);
        try {
            settings = ServeSettings.resolve(flags);
        } catch (IllegalArgumentException | java.io.IOException e) {
            err.println("blockcache serve: " + e.getMessage());
            err.flush();
            return 2;
        }
        if (printJvmOptions) {
            int s3Backings = (int) settings.backings().values().stream()
                    .filter(location -> location instanceof io.blockcache.backing.BackingLocation.S3).count();
            // A damage map kept in a file is one more file device per backing, with its own I/O buffers.
            int mapFiles = settings.damageMap() == io.blockcache.host.DamageMapPlacement.FILE
                    ? settings.backings().size() : 0;
            JvmSizing sizing = JvmSizing.forCache(cacheBytes(settings), settings.backings().size() + mapFiles,
                    s3Backings, JvmSizing.journaledVolumes(settings.knobs()), settings.nbdLimits());
            String warning = sizing.ramWarning(JvmSizing.physicalRamBytes());
            if (warning != null) {
                err.println("blockcache serve: " + warning);
                err.flush();
            }
            out.println(String.join(" ", sizing.options()));
            out.flush();
            return 0;
        }
        warnIfSizeIgnored(err, settings);
        if (cluster.enabled()) {
            return ClusterServe.run(settings, cluster, force, out, err);
        }
        ServeRuntime runtime;
        try {
            runtime = ServeRuntime.start(settings, force, err);
        } catch (ServeRuntime.ServeException e) {
            err.println("blockcache serve: " + e.getMessage());
            err.flush();
            return 1;
        }
        SystemdNotify systemd = SystemdNotify.fromEnvironment();
        if (config != null) {
            runtime.setReloader(new ConfigReload(flags, settings, runtime.host()));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            notify(systemd, err, "STOPPING=1", "STATUS=stopping: journal commit, checkpoint, clean shutdown");
            err.println("blockcache serve: stopping (journal commit, checkpoint, clean shutdown)...");
            err.flush();
            boolean clean = runtime.stop();
            err.println(clean ? "blockcache serve: stopped cleanly" : "blockcache serve: stopped, not cleanly");
            err.flush();
            out.flush();
            // A signal would otherwise end the JVM with 128+signal; a clean stop is a success.
            Runtime.getRuntime().halt(clean ? 0 : 1);
        }, "blockcache-shutdown"));
        warnIfAdminExposed(err, settings, runtime.adminAddress());
        printBanner(out, settings, runtime);
        // Recovery is done and both listeners are up: only now may systemd order dependent units after us.
        notify(systemd, err, "READY=1", "STATUS=serving " + settings.backings().keySet() + " on nbd://"
                + hostPort(runtime.nbdAddress()) + ", admin http://" + hostPort(runtime.adminAddress()));
        while (!runtime.awaitStopped(LIVENESS_CHECK_PERIOD)) {
            if (runtime.loop().failure() != null) {
                err.println("blockcache serve: the cache stopped on an internal error (fail-stop): "
                        + runtime.loop().failure());
                err.flush();
                return 1; // System.exit runs the hook, which closes what it can and exits 1
            }
        }
        return 0;
    }

    /** The {@code --nbd-*} limit flags that were given, by key. */
    private java.util.Map<String, String> nbdLimitFlags() {
        java.util.Map<String, String> given = new java.util.LinkedHashMap<>();
        String[][] pairs = {{NbdLimitSettings.HANDSHAKE_TIMEOUT, nbdHandshakeTimeout},
            {NbdLimitSettings.IDLE_TIMEOUT, nbdIdleTimeout}, {NbdLimitSettings.REPLY_TIMEOUT, nbdReplyTimeout},
            {NbdLimitSettings.KEEPALIVE, nbdKeepalive}, {NbdLimitSettings.CONNECTIONS_MAX, nbdConnectionsMax},
            {NbdLimitSettings.CONNECTIONS_PER_ADDRESS_MAX, nbdConnectionsPerAddressMax},
            {NbdLimitSettings.BUFFER_MAX, nbdBufferMax}};
        for (String[] pair : pairs) {
            if (pair[1] != null) {
                given.put(pair[0], pair[1]);
            }
        }
        return given;
    }

    private static void notify(SystemdNotify systemd, PrintWriter err, String... assignments) {
        String problem = systemd.notify(assignments);
        if (problem != null) {
            err.println("blockcache serve: telling systemd " + assignments[0] + " failed: " + problem);
            err.flush();
        }
    }

    /**
     * A --cache-size typed for a cache file that exists already is not applied (the file keeps its size): said once,
     * where before the next start silently kept the old size.
     */
    private void warnIfSizeIgnored(PrintWriter err, ServeSettings settings) {
        if (cacheSize == null || !java.nio.file.Files.isRegularFile(settings.cacheFile())) {
            return;
        }
        long existing = cacheBytes(settings);
        if (existing != settings.cacheSizeBytes()) {
            err.println("blockcache serve: warning: " + settings.cacheFile() + " exists with " + existing + " bytes;"
                    + " --cache-size " + cacheSize + " applies only to a new cache file, so this one keeps its size");
            err.flush();
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
    private static void warnIfAdminExposed(PrintWriter err, ServeSettings settings, InetSocketAddress admin) {
        if (admin.getAddress().isLoopbackAddress()) {
            return;
        }
        err.println("blockcache serve: warning: the admin API listens on " + hostPort(admin) + " without TLS: "
                + (settings.access().adminToken() != null ? "its token crosses the network in clear text"
                : "anyone who reaches it can change the cache (--insecure, no token)")
                + "; keep it on 127.0.0.1 and use ssh -L, or a TLS proxy (docs/OPERATIONS.md §10)");
        err.flush();
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

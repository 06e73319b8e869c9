package io.blockcache.cli;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.backing.RemoteDefaults;
import io.blockcache.host.DamageMapPlacement;
import io.blockcache.nbd.NbdLimits;
import io.blockcache.nbd.TlsSettings;
import io.blockcache.volume.CacheMode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code serve} needs, derived from its typed options ({@link ServeOptions}: flag, config file or default,
 * chosen by {@link ConfigDefaults}) and validated here, once: the defaults that follow from other options, the
 * relations between options (TLS, remote access, allow-lists), and the credentials and token files read.
 *
 * @param backings export name to backing location (a file or an NBD export, {@link BackingUris}), in the order given
 * @param knobs knob name to value, applied in name order after open
 * @param nbdLimits what NBD clients are allowed
 * @param tls whether NBD clients may or must use TLS, with the credentials loaded ({@link TlsFlagSettings})
 * @param access the admin token and the exports' allow-lists ({@link AccessSettings})
 * @param damageMap where the damage maps live ({@code --damage-map}, key {@code damage-map}; default {@code file})
 * @param cacheSizeGiven whether {@code --cache-size} (or key {@code cache-size}) was given rather than defaulted: then
 *     an existing smaller cache grows to it at start (docs/OPERATIONS.md "Grow the cache device")
 * @param remote how {@code s3://} and {@code nbd://} stores are reached ({@code backings} have it applied already; the
 *     host applies it to volumes added live and to the locations the cache recorded for them)
 */
record ServeSettings(Path dataDir, Path cacheFile, Map<String, BackingLocation> backings, long cacheSizeBytes,
                     long backingSizeBytes, InetSocketAddress nbdListen, InetSocketAddress adminListen, CacheMode mode,
                     Map<String, String> knobs, NbdLimits nbdLimits, TlsSettings tls, AccessSettings access,
                     DamageMapPlacement damageMap, boolean cacheSizeGiven, RemoteDefaults remote) {
    static final String EXPORT_DEFAULT = "default";
    /**
     * These settings for a replicated node that starts to serve: a fresh cache in {@code servingDir} (whatever an
     * earlier term left there is stale), S3 volumes taken over (the group decided who serves), and writeback off
     * until the old server is surely fenced ({@code cli.ClusterServe}).
     */
    ServeSettings forReplica(Path servingDir) {
        Map<String, BackingLocation> taken = new java.util.LinkedHashMap<>();
        Map<String, String> replicaKnobs = new java.util.LinkedHashMap<>(knobs);
        for (Map.Entry<String, BackingLocation> e : backings.entrySet()) {
            BackingLocation location = e.getValue();
            if (location instanceof BackingLocation.S3 s3) {
                location = s3.withOptions(s3.options().withTakeOver(true));
            }
            taken.put(e.getKey(), location);
            replicaKnobs.put("writeback." + e.getKey() + ".running", "false");
        }
        return new ServeSettings(servingDir, servingDir.resolve("cache.img"), taken, cacheSizeBytes, backingSizeBytes,
                nbdListen, adminListen, mode, replicaKnobs, nbdLimits, tls, access, damageMap, cacheSizeGiven, remote);
    }


    /**
     * Parses {@code serve}'s arguments (config file included) and resolves them.
     *
     * @throws IllegalArgumentException with a message for the user about the first problem found
     */
    static ServeSettings resolve(String... args) {
        return of(ServeOptions.parse(List.of(args)));
    }

    /**
     * Resolves and validates the settings of parsed options.
     *
     * @throws IllegalArgumentException with a message for the user about the first problem found
     */
    static ServeSettings of(ServeOptions options) {
        ConfigDefaults config = options.configDefaults();
        Path cacheFile = options.cache != null ? options.cache : options.dataDir.resolve("cache.img");
        ListenAddress.checkLoopback("--nbd-listen", options.nbdListen, options.allowRemote);
        ListenAddress.checkLoopback("--admin-listen", options.adminListen, options.allowRemote);
        TlsSettings tls = TlsFlagSettings.resolve(options.tls, options.tlsCertificates, options.tlsPsk,
                options.tlsVerifyPeer);
        RemoteDefaults remote = new RemoteDefaults(options.s3Endpoint, options.takeOver, options.s3RetryTime.toMillis(),
                options.nbdBackingTimeout.toNanos());
        Map<String, BackingLocation> backings = new LinkedHashMap<>();
        backings(options).forEach((name, location) -> backings.put(name, remote.applyTo(location)));
        AccessSettings access = AccessSettings.resolve(options.adminTokenFile,
                config.perName(options.spec, "--allow-addresses", options.allowAddresses),
                config.perName(options.spec, "--allow-psk-users", options.allowPskUsers), backings.keySet(), tls);
        TlsFlagSettings.checkRemote(options.allowRemote, options.nbdListen, options.adminListen, tls,
                access.adminToken() != null, options.insecure);
        return new ServeSettings(options.dataDir, cacheFile, backings, options.cacheSizeBytes,
                options.backingSizeBytes, options.nbdListen, options.adminListen, options.mode,
                config.knobs(options.spec), nbdLimits(options), tls, access, options.damageMap,
                cacheSizeGiven(options), remote);
    }

    /** Whether the cache size came from the command line or the config file, not from the default. */
    private static boolean cacheSizeGiven(ServeOptions options) {
        picocli.CommandLine.Model.OptionSpec option = options.spec.findOption("--cache-size");
        picocli.CommandLine.ParseResult parsed = options.spec.commandLine() == null ? null
                : options.spec.commandLine().getParseResult();
        return (parsed != null && parsed.hasMatchedOption("--cache-size"))
                || options.configDefaults().source(option) != null;
    }

    private static NbdLimits nbdLimits(ServeOptions options) {
        long bufferBytes = options.nbdBufferMaxBytes != null ? options.nbdBufferMaxBytes
                : NbdLimitSettings.defaultBufferBytes(options.nbdConnectionsMax);
        try {
            return new NbdLimits(options.nbdHandshakeTimeout, options.nbdIdleTimeout, options.nbdReplyTimeout,
                    options.nbdKeepalive, options.nbdConnectionsMax, options.nbdConnectionsPerAddressMax, bufferBytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("NBD limits: " + e.getMessage());
        }
    }

    /** The backings by export name, in the order given; without any, {@code default=DIR/backing.img}. */
    private static Map<String, BackingLocation> backings(ServeOptions options) {
        Map<String, BackingLocation> backings = new LinkedHashMap<>();
        if (options.backings == null || options.backings.isEmpty()) {
            backings.put(EXPORT_DEFAULT, new BackingLocation.File(options.dataDir.resolve("backing.img")));
            return backings;
        }
        backings.putAll(Named.byName(options.backings, "export name"));
        return backings;
    }
}

package io.blockcache.cli;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.host.DamageMapPlacement;
import io.blockcache.backing.S3Options;
import io.blockcache.nbd.NbdLimits;
import io.blockcache.nbd.TlsSettings;
import io.blockcache.volume.CacheMode;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Everything {@code serve} needs, resolved once and validated here: a flag wins over the config file, the
 * config file over the default. The config file is a properties file with the long flags' names as keys
 * ({@code cache-size=1G}, {@code backing=default=/srv/disk.img,other=nbd://host:10809/b}) plus
 * {@code knob.NAME=VALUE} lines applied at start.
 *
 * @param backings export name to backing location (a file or an NBD export, {@link BackingUris}), in the order given
 * @param knobs knob name to value, applied in name order after open
 * @param nbdLimits what NBD clients are allowed ({@link NbdLimitSettings})
 * @param tls whether NBD clients may or must use TLS, with the credentials loaded ({@link TlsFlagSettings})
 * @param access the admin token and the exports' allow-lists ({@link AccessSettings})
 * @param damageMap where the damage maps live ({@code --damage-map}, key {@code damage-map}; default {@code file})
 */
record ServeSettings(Path dataDir, Path cacheFile, Map<String, BackingLocation> backings, long cacheSizeBytes,
                     long backingSizeBytes, InetSocketAddress nbdListen, InetSocketAddress adminListen, CacheMode mode,
                     Map<String, String> knobs, NbdLimits nbdLimits, TlsSettings tls, AccessSettings access,
                     DamageMapPlacement damageMap) {
    /** Default cache file size: 1 GiB, enough to see caching at work without filling a laptop. */
    static final String CACHE_SIZE_DEFAULT = "1G";
    /** Default backing file size: 8 GiB, sparse, so it costs only what is written. */
    static final String BACKING_SIZE_DEFAULT = "8G";
    /** The NBD port IANA assigned (10809); loopback only by default. */
    static final String NBD_LISTEN_DEFAULT = "127.0.0.1:10809";
    /** The next port up for the admin API. */
    static final String ADMIN_LISTEN_DEFAULT = "127.0.0.1:10810";
    static final String DATA_DIR_DEFAULT = "data";
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
                nbdListen, adminListen, mode, replicaKnobs, nbdLimits, tls, access, damageMap);
    }

    /**
     * The damage map in a file in the data directory: it survives the loss of the cache device, and writes never
     * wait for the backing device, so a remote backing that goes away leaves the volume writable (issue 11). The
     * reasons and the alternatives: docs/WRITEBACK.md "Where the map lives".
     */
    static final String DAMAGE_MAP_DEFAULT = "file";

    /**
     * The key (and flag) of the NBD client's per-request timeout for {@code nbd://} backings: a request unanswered
     * that long gives its connection up and the client reconnects and replays (default 60 s,
     * {@code NbdDevice.REQUEST_TIMEOUT_NS_DEFAULT}).
     */
    static final String NBD_BACKING_TIMEOUT = "nbd-backing-timeout";
    /** Shorter than a second would cut off a healthy server's slow flush; the client checks 4 times a timeout. */
    static final long NBD_BACKING_TIMEOUT_SECONDS_MIN = 1;
    /** A day: longer is "never" in practice, and a server that never answers must not hold writeback forever. */
    static final long NBD_BACKING_TIMEOUT_SECONDS_MAX = 86_400;

    /**
     * The config key of how long failed S3 requests of {@code s3://} backings are retried before a flush reports the
     * error (default 120 s, {@code S3Options.RETRY_TIME_MS_DEFAULT}); a duration like {@code 90s} or {@code 5m}.
     */
    static final String S3_RETRY_TIME = "s3-retry-time";

    private static final Set<String> CONFIG_KEYS = Stream.concat(Stream.of("data-dir", "cache",
            "backing", "cache-size", "backing-size", "nbd-listen", "admin-listen", "mode", "allow-remote",
            AdminTokenFile.KEY, "damage-map", "s3-endpoint", "take-over", NBD_BACKING_TIMEOUT, S3_RETRY_TIME),
            Stream.concat(NbdLimitSettings.KEYS.stream(), TlsFlagSettings.KEYS.stream()))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
    private static final String KNOB_PREFIX = "knob.";

    /**
     * The flags as given; null where a flag was not given.
     *
     * @param nbdLimits the {@code --nbd-*} limit flags given, by name without the dashes
     * @param tls the TLS flags given
     * @param access the admin token and allow-list flags given
     */
    record Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
                 String nbdListen, String adminListen, String mode, Path config, boolean allowRemote,
                 Map<String, String> nbdLimits, TlsFlagSettings.Flags tls, AccessSettings.Flags access,
                 BackingFlags backing, String damageMap) {
        /** The flags without {@code --damage-map}. */
        Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
              String nbdListen, String adminListen, String mode, Path config, boolean allowRemote,
              Map<String, String> nbdLimits, TlsFlagSettings.Flags tls, AccessSettings.Flags access,
              BackingFlags backing) {
            this(dataDir, cache, backings, cacheSize, backingSize, nbdListen, adminListen, mode, config, allowRemote,
                    nbdLimits, tls, access, backing, null);
        }

        /** The flags without remote backing flags or {@code --damage-map}. */
        Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
              String nbdListen, String adminListen, String mode, Path config, boolean allowRemote,
              Map<String, String> nbdLimits, TlsFlagSettings.Flags tls, AccessSettings.Flags access) {
            this(dataDir, cache, backings, cacheSize, backingSize, nbdListen, adminListen, mode, config, allowRemote,
                    nbdLimits, tls, access, BackingFlags.NONE, null);
        }

        /** The flags without access or remote backing flags. */
        Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
              String nbdListen, String adminListen, String mode, Path config, boolean allowRemote,
              Map<String, String> nbdLimits, TlsFlagSettings.Flags tls) {
            this(dataDir, cache, backings, cacheSize, backingSize, nbdListen, adminListen, mode, config, allowRemote,
                    nbdLimits, tls, AccessSettings.Flags.NONE, BackingFlags.NONE, null);
        }

        /** The flags without TLS flags. */
        Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
              String nbdListen, String adminListen, String mode, Path config, boolean allowRemote,
              Map<String, String> nbdLimits) {
            this(dataDir, cache, backings, cacheSize, backingSize, nbdListen, adminListen, mode, config, allowRemote,
                    nbdLimits, TlsFlagSettings.Flags.NONE);
        }

        /** The flags without NBD limit or TLS flags. */
        Flags(String dataDir, String cache, List<String> backings, String cacheSize, String backingSize,
              String nbdListen, String adminListen, String mode, Path config, boolean allowRemote) {
            this(dataDir, cache, backings, cacheSize, backingSize, nbdListen, adminListen, mode, config, allowRemote,
                    Map.of());
        }
    }

    /**
     * The flags for remote backings as given.
     *
     * @param endpoint {@code --s3-endpoint} for {@code s3://} backings, or null
     * @param takeOver {@code --take-over} for {@code s3://} backings
     * @param nbdTimeout {@code --nbd-backing-timeout} for {@code nbd://} backings, or null
     */
    record BackingFlags(String endpoint, boolean takeOver, String nbdTimeout) {
        static final BackingFlags NONE = new BackingFlags(null, false, null);
    }

    /**
     * Resolves and validates the settings.
     *
     * @throws IllegalArgumentException with a message for the user about the first problem found
     * @throws IOException if the config file cannot be read
     */
    static ServeSettings resolve(Flags flags) throws IOException {
        Properties config = load(flags.config());
        Map<String, String> knobs = new TreeMap<>();
        for (String key : config.stringPropertyNames()) {
            if (key.startsWith(KNOB_PREFIX) && key.length() > KNOB_PREFIX.length()) {
                knobs.put(key.substring(KNOB_PREFIX.length()), config.getProperty(key).strip());
            } else if (!CONFIG_KEYS.contains(key) && !AccessSettings.isExportKey(key)) {
                throw new IllegalArgumentException("unknown key \"" + key + "\" in " + flags.config()
                        + "; known keys: " + new java.util.TreeSet<>(CONFIG_KEYS)
                        + ", knob.NAME and export.NAME.{allow-addresses,allow-psk-users}");
            }
        }
        Path dataDir = Path.of(pick(flags.dataDir(), config, "data-dir", DATA_DIR_DEFAULT));
        Path cacheFile = Path.of(pick(flags.cache(), config, "cache", dataDir.resolve("cache.img").toString()));
        List<String> backingSpecs = flags.backings() != null && !flags.backings().isEmpty() ? flags.backings()
                : config.getProperty("backing") != null ? List.of(config.getProperty("backing").split(","))
                : List.of(EXPORT_DEFAULT + "=" + dataDir.resolve("backing.img"));
        boolean allowRemote = ConfigBoolean.flagOrConfig(flags.allowRemote(), config, "allow-remote");
        InetSocketAddress nbd = ListenAddress.parse("--nbd-listen",
                pick(flags.nbdListen(), config, "nbd-listen", NBD_LISTEN_DEFAULT));
        InetSocketAddress admin = ListenAddress.parse("--admin-listen",
                pick(flags.adminListen(), config, "admin-listen", ADMIN_LISTEN_DEFAULT));
        ListenAddress.checkLoopback("--nbd-listen", nbd, allowRemote);
        ListenAddress.checkLoopback("--admin-listen", admin, allowRemote);
        TlsSettings tls = TlsFlagSettings.resolve(flags.tls(), config);
        Map<String, BackingLocation> backings = withNbdTimeout(withS3(backings(backingSpecs), flags.backing(),
                config), pick(flags.backing().nbdTimeout(), config, NBD_BACKING_TIMEOUT, null));
        AccessSettings access = AccessSettings.resolve(flags.access(), config, backings.keySet(), tls);
        TlsFlagSettings.checkRemote(allowRemote, nbd, admin, tls, access.adminToken() != null,
                TlsFlagSettings.insecure(flags.tls(), config));
        return new ServeSettings(dataDir, cacheFile, backings,
                ByteSizes.parse(pick(flags.cacheSize(), config, "cache-size", CACHE_SIZE_DEFAULT)),
                ByteSizes.parse(pick(flags.backingSize(), config, "backing-size", BACKING_SIZE_DEFAULT)),
                nbd, admin, mode(pick(flags.mode(), config, "mode", "writeback")), knobs,
                NbdLimitSettings.resolve(flags.nbdLimits(), config), tls, access,
                DamageMapPlacement.parse(pick(flags.damageMap(), config, "damage-map", DAMAGE_MAP_DEFAULT)));
    }

    /** The config file's properties; none without a file. */
    static Properties load(Path file) throws IOException {
        return file == null ? new Properties() : ConfigFile.read(file);
    }

    private static String pick(String flag, Properties config, String key, String fallback) {
        if (flag != null) {
            return flag;
        }
        String configured = config.getProperty(key);
        return configured != null ? configured.strip() : fallback;
    }

    private static Map<String, BackingLocation> backings(List<String> specs) {
        Map<String, BackingLocation> backings = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (String spec : specs) {
            int equals = spec.indexOf('=');
            if (equals <= 0 || equals == spec.length() - 1) {
                problems.add("--backing must be NAME=URI, e.g. default=./data/backing.img or "
                        + "default=nbd://host:10809/export; got \"" + spec + "\"");
            } else {
                String name = spec.substring(0, equals).strip();
                try {
                    if (backings.put(name, BackingUris.parse(spec.substring(equals + 1).strip())) != null) {
                        problems.add("export name \"" + name + "\" is given twice");
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return backings;
    }

    /** Gives every s3:// backing the endpoint and take-over choice (flags over the config file). */
    private static Map<String, BackingLocation> withS3(Map<String, BackingLocation> backings, BackingFlags flags,
                                                       Properties config) {
        String endpointText = pick(flags.endpoint(), config, "s3-endpoint", null);
        URI endpoint = endpointText == null ? null : S3Options.endpoint(endpointText);
        boolean takeOver = flags.takeOver() || Boolean.parseBoolean(config.getProperty("take-over", "false").strip());
        String retryText = config.getProperty(S3_RETRY_TIME);
        long retryTimeMs;
        try {
            retryTimeMs = retryText == null ? S3Options.RETRY_TIME_MS_DEFAULT
                    : Durations.parseSeconds(retryText.strip()) * 1000L; // at most a year: no overflow
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(S3_RETRY_TIME + ": " + e.getMessage());
        }
        if (retryTimeMs > S3Options.RETRY_TIME_MS_MAX) {
            throw new IllegalArgumentException(S3_RETRY_TIME + " must be from 1s to 24h, got \"" + retryText.strip()
                    + "\"");
        }
        Map<String, BackingLocation> resolved = new LinkedHashMap<>();
        backings.forEach((name, location) -> resolved.put(name, location instanceof BackingLocation.S3 s3
                ? s3.withOptions(s3.options().withEndpoint(endpoint).withTakeOver(takeOver)
                        .withRetryTimeMs(retryTimeMs)) : location));
        return resolved;
    }

    /** Gives every nbd:// backing the client's request timeout, if one is given (validated here). */
    private static Map<String, BackingLocation> withNbdTimeout(Map<String, BackingLocation> backings, String text) {
        if (text == null) {
            return backings;
        }
        long seconds;
        try {
            seconds = Durations.parseSeconds(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--" + NBD_BACKING_TIMEOUT + ": " + e.getMessage());
        }
        if (seconds < NBD_BACKING_TIMEOUT_SECONDS_MIN || seconds > NBD_BACKING_TIMEOUT_SECONDS_MAX) {
            throw new IllegalArgumentException("--" + NBD_BACKING_TIMEOUT + " must be from "
                    + NBD_BACKING_TIMEOUT_SECONDS_MIN + "s to " + NBD_BACKING_TIMEOUT_SECONDS_MAX / 3600
                    + "h, got \"" + text + "\"");
        }
        Map<String, BackingLocation> resolved = new LinkedHashMap<>();
        backings.forEach((name, location) -> resolved.put(name, location instanceof BackingLocation.Nbd nbd
                ? nbd.withRequestTimeoutNs(seconds * 1_000_000_000L) : location));
        return resolved;
    }

    private static CacheMode mode(String text) {
        try {
            return CacheMode.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mode must be one of writeback, writethrough, writearound, none; "
                    + "got \"" + text + "\"");
        }
    }
}

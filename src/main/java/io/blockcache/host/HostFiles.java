package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.backing.RemoteDefaults;
import io.blockcache.backing.S3Options;
import io.blockcache.engine.CacheSetOptions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link CacheHost} opens, validated once here.
 *
 * @param cacheFile the cache device file; created with {@code cacheSizeBytes} and formatted when absent
 * @param cacheSizeBytes size of a new cache file, in bytes
 * @param backings export name to backing store (a file, {@code file:}, or an NBD export, {@code nbd://}:
 *     {@code backing.BackingUris}), in volume order; missing files are created sparse with
 *     {@code backingSizeBytes}, but only together with a new cache (an existing cache may hold their dirty data)
 * @param backingSizeBytes size of a new backing file, in bytes
 * @param options the cache set's options (geometry when formatting, the rest when opening)
 * @param knobs knob name to value, applied in name order after open
 * @param damageMap where the damage maps live; it decides {@code options.damageMap()}
 * @param dataDir where the map files live with {@link DamageMapPlacement#FILE} (else may be null)
 * @param force with a new cache, overwrite backing stores that hold blockcache metadata (else they are refused:
 *     {@link MetadataGuard})
 * @param growCache with an existing cache file smaller than {@code cacheSizeBytes}, grow it to that size before the
 *     open ({@code engine.CacheSet#grow}; docs/OPERATIONS.md "Grow the cache device"): the operator asked for the size
 * @param remote how remote stores are reached, for the locations a cache recorded for volumes added live and for
 *     those added live ({@code backings} have it applied already)
 */
public record HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings,
                        long backingSizeBytes,
                        CacheSetOptions options, Map<String, String> knobs, DamageMapPlacement damageMap,
                        Path dataDir, boolean force, boolean growCache, RemoteDefaults remote) {
    public HostFiles {
        if (cacheFile == null || options == null || damageMap == null) {
            throw new IllegalArgumentException("a cache file, options and a damage map placement are required");
        }
        if (damageMap == DamageMapPlacement.FILE && dataDir == null) {
            throw new IllegalArgumentException("damage-map=file needs a data directory for its files");
        }
        options = options.withDamageMap(damageMap != DamageMapPlacement.OFF);
        remote = remote == null ? RemoteDefaults.NONE : remote;
        if (backings == null || backings.isEmpty()) {
            throw new IllegalArgumentException("at least one backing file is required");
        }
        if (cacheSizeBytes <= 0 || backingSizeBytes <= 0) {
            throw new IllegalArgumentException("file sizes must be positive: cache " + cacheSizeBytes
                    + " bytes, backing " + backingSizeBytes + " bytes");
        }
        backings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(backings));
        knobs = java.util.Collections.unmodifiableMap(new TreeMap<>(knobs == null ? Map.of() : knobs));
    }

    /** With the built-in ways to reach remote stores ({@link RemoteDefaults#NONE}). */
    public HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings,
                     long backingSizeBytes, CacheSetOptions options, Map<String, String> knobs,
                     DamageMapPlacement damageMap, Path dataDir, boolean force, boolean growCache) {
        this(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap, dataDir, force,
                growCache, RemoteDefaults.NONE);
    }

    /** Not forced: backing stores that hold blockcache metadata are refused with a new cache. */
    public HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings,
                     long backingSizeBytes, CacheSetOptions options, Map<String, String> knobs,
                     DamageMapPlacement damageMap, Path dataDir) {
        this(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap, dataDir, false, false);
    }

    /** These files, with {@link #force()} set to {@code overwrite}. */
    public HostFiles withForce(boolean overwrite) {
        return new HostFiles(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap,
                dataDir, overwrite, growCache, remote);
    }

    /** These files, with {@link #growCache()} set to {@code grow}. */
    public HostFiles withGrowCache(boolean grow) {
        return new HostFiles(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap,
                dataDir, force, grow, remote);
    }

    /** These files with {@code newBackings} instead (volume order). */
    public HostFiles withBackings(Map<String, BackingLocation> newBackings) {
        return new HostFiles(cacheFile, cacheSizeBytes, newBackings, backingSizeBytes, options, knobs, damageMap,
                dataDir, force, growCache, remote);
    }

    /** These files with {@code newRemote} (the given backings as they are: the caller applied it to them). */
    public HostFiles withRemote(RemoteDefaults newRemote) {
        return new HostFiles(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap,
                dataDir, force, growCache, newRemote);
    }

    /** Without a placement: the map on the backing devices if {@code options.damageMap()}, else none. */
    public HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings, long backingSizeBytes,
                     CacheSetOptions options, Map<String, String> knobs) {
        this(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs,
                options != null && options.damageMap() ? DamageMapPlacement.BACKING : DamageMapPlacement.OFF, null);
    }

    /**
     * Where the backing stores are and how to reach them, as the library API gives them (it names no backing types).
     *
     * @param locations volume name to a path, {@code file:PATH}, {@code nbd://HOST[:PORT]/EXPORT} or
     *     {@code s3://BUCKET/PREFIX}, in volume order
     * @param s3Endpoint the S3 endpoint URL for {@code s3://} backings (null: AWS, with the default chains)
     * @param takeOver take {@code s3://} volumes another cache owns (docs/SCALE.md)
     * @param nbdTimeoutMs the NBD client's request timeout for {@code nbd://} backings, in ms (0: its default)
     */
    public record Remote(Map<String, String> locations, String s3Endpoint, boolean takeOver, long nbdTimeoutMs) {
        public Remote {
            locations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(locations));
            if (nbdTimeoutMs < 0) {
                throw new IllegalArgumentException("the NBD request timeout must not be negative: " + nbdTimeoutMs
                        + " ms");
            }
            parse(locations, remote(s3Endpoint, takeOver, nbdTimeoutMs)); // fields are assigned after this body
        }
    }

    /**
     * Parses one backing location for a message-only check.
     *
     * @throws IllegalArgumentException with one line for an unknown scheme, a malformed URI or endpoint
     */
    public static void checkLocation(String location) {
        BackingUris.parse(location);
    }

    /** The locations parsed, with the endpoint, take-over and timeout applied ({@link Remote}). */
    private static Map<String, BackingLocation> parse(Map<String, String> locations, RemoteDefaults remote) {
        Map<String, BackingLocation> parsed = new LinkedHashMap<>();
        locations.forEach((name, text) -> parsed.put(name, remote.applyTo(BackingUris.parse(text))));
        return parsed;
    }

    /** How {@link Remote}'s settings reach remote stores (an NBD timeout of 0: the default). */
    private static RemoteDefaults remote(String s3Endpoint, boolean takeOver, long nbdTimeoutMs) {
        return new RemoteDefaults(s3Endpoint == null ? null : S3Options.endpoint(s3Endpoint), takeOver,
                S3Options.RETRY_TIME_MS_DEFAULT, nbdTimeoutMs == 0 ? RemoteDefaults.NONE.nbdRequestTimeoutNs()
                : nbdTimeoutMs * 1_000_000L);
    }

    /**
     * As the canonical constructor, with backings given by location text ({@link Remote}), the damage map placed as
     * {@code options.damageMap()} says (on the backing devices or none).
     */
    public static HostFiles withLocations(Path cacheFile, long cacheSizeBytes, Remote backings,
                                          long backingSizeBytes, CacheSetOptions options, Map<String, String> knobs,
                                          boolean force) {
        RemoteDefaults remote = remote(backings.s3Endpoint(), backings.takeOver(), backings.nbdTimeoutMs());
        return new HostFiles(cacheFile, cacheSizeBytes, parse(backings.locations(), remote), backingSizeBytes,
                options, knobs).withForce(force).withRemote(remote);
    }

    /** As the canonical constructor, for backings that are all files. */
    public static HostFiles withFiles(Path cacheFile, long cacheSizeBytes, Map<String, Path> backingFiles,
                                      long backingSizeBytes, CacheSetOptions options, Map<String, String> knobs) {
        Map<String, BackingLocation> backings = new LinkedHashMap<>();
        if (backingFiles != null) {
            backingFiles.forEach((name, path) -> backings.put(name, new BackingLocation.File(path)));
        }
        return new HostFiles(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs);
    }
}

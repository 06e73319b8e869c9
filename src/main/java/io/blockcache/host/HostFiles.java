package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
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
 */
public record HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings,
                        long backingSizeBytes,
                        CacheSetOptions options, Map<String, String> knobs, DamageMapPlacement damageMap,
                        Path dataDir, boolean force) {
    public HostFiles {
        if (cacheFile == null || options == null || damageMap == null) {
            throw new IllegalArgumentException("a cache file, options and a damage map placement are required");
        }
        if (damageMap == DamageMapPlacement.FILE && dataDir == null) {
            throw new IllegalArgumentException("damage-map=file needs a data directory for its files");
        }
        options = options.withDamageMap(damageMap != DamageMapPlacement.OFF);
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

    /** Not forced: backing stores that hold blockcache metadata are refused with a new cache. */
    public HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings,
                     long backingSizeBytes, CacheSetOptions options, Map<String, String> knobs,
                     DamageMapPlacement damageMap, Path dataDir) {
        this(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap, dataDir, false);
    }

    /** These files, with {@link #force()} set to {@code overwrite}. */
    public HostFiles withForce(boolean overwrite) {
        return new HostFiles(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs, damageMap,
                dataDir, overwrite);
    }

    /** Without a placement: the map on the backing devices if {@code options.damageMap()}, else none. */
    public HostFiles(Path cacheFile, long cacheSizeBytes, Map<String, BackingLocation> backings, long backingSizeBytes,
                     CacheSetOptions options, Map<String, String> knobs) {
        this(cacheFile, cacheSizeBytes, backings, backingSizeBytes, options, knobs,
                options != null && options.damageMap() ? DamageMapPlacement.BACKING : DamageMapPlacement.OFF, null);
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

package io.blockcache.embed;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * How to open a {@link BlockCache}: the cache file, the backing files with their volume names, sizes for files
 * that do not exist yet, the initial cache mode, knobs and the executor that completes futures. Immutable;
 * validated once by {@link Builder#build}. Build one with {@link #builder(Path)}.
 *
 * @param cacheFile the cache device file (a file on fast storage, or a block device node)
 * @param backings volume name to backing file, in volume order
 * @param cacheSizeBytes size of a new cache file, in bytes
 * @param backingSizeBytes size of a new (sparse) backing file, in bytes
 * @param mode initial cache mode of every volume: writeback, writethrough, writearound or none
 * @param knobs live knobs set after open, by name (the names {@code blockcache get} lists), applied in name order
 * @param completionExecutor runs the completion of every future, so that dependent stages never run on the
 *     cache's loop thread and may block
 */
public record BlockCacheConfig(Path cacheFile, Map<String, Path> backings, long cacheSizeBytes, long backingSizeBytes,
                               String mode, Map<String, String> knobs, Executor completionExecutor) {
    /** Default size of a new cache file: 1 GiB (as {@code serve}). */
    public static final long CACHE_SIZE_BYTES_DEFAULT = 1L << 30;
    /** Default size of a new backing file: 8 GiB, sparse, so it costs only what is written (as {@code serve}). */
    public static final long BACKING_SIZE_BYTES_DEFAULT = 8L << 30;
    private static final Set<String> MODES = Set.of("writeback", "writethrough", "writearound", "none");

    /** Validates every value; throws {@link IllegalArgumentException} with a one-line message on the first. */
    public BlockCacheConfig {
        if (cacheFile == null) {
            throw new IllegalArgumentException("the cache file is required");
        }
        if (backings == null || backings.isEmpty()) {
            throw new IllegalArgumentException("at least one backing file is required (builder.backing(NAME, FILE))");
        }
        if (cacheSizeBytes <= 0 || backingSizeBytes <= 0) {
            throw new IllegalArgumentException("sizes of new files must be positive: cache " + cacheSizeBytes
                    + " bytes, backing " + backingSizeBytes + " bytes");
        }
        if (mode == null || !MODES.contains(mode.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("mode must be one of writeback, writethrough, writearound, none; got \""
                    + mode + "\"");
        }
        if (completionExecutor == null) {
            throw new IllegalArgumentException("a completion executor is required");
        }
        mode = mode.toLowerCase(Locale.ROOT);
        backings = Collections.unmodifiableMap(new LinkedHashMap<>(backings));
        knobs = Collections.unmodifiableMap(new TreeMap<>(knobs == null ? Map.of() : knobs));
    }

    /** A builder for a cache in {@code cacheFile}, with the defaults of {@code serve}. */
    public static Builder builder(Path cacheFile) {
        return new Builder(cacheFile);
    }

    /** Collects a configuration; {@link #build} validates it. Not thread-safe. */
    public static final class Builder {
        private final Path cacheFile;
        private final Map<String, Path> backings = new LinkedHashMap<>();
        private final Map<String, String> knobs = new TreeMap<>();
        private long cacheSizeBytes = CACHE_SIZE_BYTES_DEFAULT;
        private long backingSizeBytes = BACKING_SIZE_BYTES_DEFAULT;
        private String mode = "writeback";
        private Executor completionExecutor = ForkJoinPool.commonPool();

        private Builder(Path cacheFile) {
            this.cacheFile = cacheFile;
        }

        /** Adds a backing file served as the volume {@code name}; names must be unique. */
        public Builder backing(String name, Path file) {
            if (name == null || name.isBlank() || file == null) {
                throw new IllegalArgumentException("a backing needs a name and a file; got " + name + "=" + file);
            }
            if (backings.putIfAbsent(name, file) != null) {
                throw new IllegalArgumentException("volume name \"" + name + "\" is given twice");
            }
            return this;
        }

        /** Size of the cache file if it must be created, in bytes (default 1 GiB). */
        public Builder cacheSizeBytes(long bytes) {
            this.cacheSizeBytes = bytes;
            return this;
        }

        /** Size of backing files that must be created, in bytes (default 8 GiB, sparse). */
        public Builder backingSizeBytes(long bytes) {
            this.backingSizeBytes = bytes;
            return this;
        }

        /** Initial cache mode: writeback (default), writethrough, writearound or none. */
        public Builder mode(String newMode) {
            this.mode = newMode;
            return this;
        }

        /** Sets a live knob after open, e.g. {@code knob("writeback.default.running", "false")}. */
        public Builder knob(String name, String value) {
            knobs.put(name, value);
            return this;
        }

        /** Where futures complete (default {@link ForkJoinPool#commonPool()}). */
        public Builder completionExecutor(Executor executor) {
            this.completionExecutor = executor;
            return this;
        }

        /** The validated configuration. */
        public BlockCacheConfig build() {
            return new BlockCacheConfig(cacheFile, backings, cacheSizeBytes, backingSizeBytes, mode, knobs,
                    completionExecutor);
        }
    }
}

package io.blockcache.embed;

import io.blockcache.host.HostFiles;
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
 * How to open a {@link BlockCache}: the cache file, the backing stores with their volume names (files, remote NBD
 * exports, S3 volumes), sizes for files and S3 volumes that do not exist yet, the initial cache mode, knobs and the
 * executor that completes futures. Immutable; validated once by {@link Builder#build}. Build one with
 * {@link #builder(Path)}.
 *
 * @param cacheFile the cache device file (a file on fast storage, or a block device node)
 * @param backings volume name to backing store, in volume order: {@code file:PATH} (or a plain path),
 *     {@code nbd://HOST[:PORT]/EXPORT} or {@code s3://BUCKET/PREFIX} (docs/CLI.md, {@code serve --backing})
 * @param cacheSizeBytes size of a new cache file, in bytes
 * @param backingSizeBytes size of the volume of a new (sparse) backing file or S3 volume, in bytes (the store gets its
 *     1 MiB header on top)
 * @param mode initial cache mode of every volume: writeback, writethrough, writearound or none
 * @param knobs live knobs set after open, by name (the names {@code blockcache get} lists), applied in name order
 * @param completionExecutor runs the completion of every future, so that dependent stages never run on the
 *     cache's loop thread and may block
 * @param s3Endpoint the endpoint of {@code s3://} backings (MinIO, Ceph RGW, S3Proxy: path-style requests); null for
 *     AWS. Region and credentials come from the AWS default chains ({@code AWS_REGION}, {@code AWS_ACCESS_KEY_ID} /
 *     {@code AWS_SECRET_ACCESS_KEY}, {@code ~/.aws} profiles)
 * @param takeOver take {@code s3://} volumes another cache owns: a deliberate failover (docs/SCALE.md)
 * @param force with a new cache file, overwrite backing stores that already hold blockcache metadata (without it
 *     they are refused, as {@code serve} and {@code format} refuse them)
 * @param nbdRequestTimeoutMillis how long the client of {@code nbd://} backings waits for a reply before it
 *     reconnects and replays; 0 for its default (60 s)
 */
public record BlockCacheConfig(Path cacheFile, Map<String, String> backings, long cacheSizeBytes,
                               long backingSizeBytes, String mode, Map<String, String> knobs,
                               Executor completionExecutor, String s3Endpoint, boolean takeOver, boolean force,
                               long nbdRequestTimeoutMillis) {
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
            throw new IllegalArgumentException("at least one backing file is required (builder.backing(NAME, FILE) or"
                    + " builder.backing(NAME, URI))");
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
        remote(backings, s3Endpoint, takeOver, nbdRequestTimeoutMillis); // every location parses, or one line why
        knobs = Collections.unmodifiableMap(new TreeMap<>(knobs == null ? Map.of() : knobs));
    }

    /** The backings as the host opens them; refuses a bad location, endpoint or timeout with one line. */
    static HostFiles.Remote remote(Map<String, String> backings, String s3Endpoint, boolean takeOver,
                                   long nbdRequestTimeoutMillis) {
        return new HostFiles.Remote(backings, s3Endpoint, takeOver, nbdRequestTimeoutMillis);
    }

    /** A builder for a cache in {@code cacheFile}, with the defaults of {@code serve}. */
    public static Builder builder(Path cacheFile) {
        return new Builder(cacheFile);
    }

    /** Collects a configuration; {@link #build} validates it. Not thread-safe. */
    public static final class Builder {
        private final Path cacheFile;
        private final Map<String, String> backings = new LinkedHashMap<>();
        private final Map<String, String> knobs = new TreeMap<>();
        private long cacheSizeBytes = CACHE_SIZE_BYTES_DEFAULT;
        private long backingSizeBytes = BACKING_SIZE_BYTES_DEFAULT;
        private String mode = "writeback";
        private Executor completionExecutor = ForkJoinPool.commonPool();
        private String s3Endpoint;
        private boolean takeOver;
        private boolean force;
        private long nbdRequestTimeoutMillis;

        private Builder(Path cacheFile) {
            this.cacheFile = cacheFile;
        }

        /** Adds a backing file served as the volume {@code name}; names must be unique. */
        public Builder backing(String name, Path file) {
            if (name == null || name.isBlank() || file == null) {
                throw new IllegalArgumentException("a backing needs a name and a file; got " + name + "=" + file);
            }
            return backing(name, "file:" + file); // never read as a URI, whatever the path looks like
        }

        /**
         * Adds a backing store served as the volume {@code name}: {@code file:PATH} (or a plain path),
         * {@code nbd://HOST[:PORT]/EXPORT} or {@code s3://BUCKET/PREFIX}; names must be unique. A new S3 volume is
         * created with {@link #backingSizeBytes} when the cache is new.
         */
        public Builder backing(String name, String location) {
            if (name == null || name.isBlank() || location == null || location.isBlank()) {
                throw new IllegalArgumentException("a backing needs a name and a location; got " + name + "="
                        + location);
            }
            if (backings.putIfAbsent(name, location) != null) {
                throw new IllegalArgumentException("volume name \"" + name + "\" is given twice");
            }
            return this;
        }

        /** The endpoint of {@code s3://} backings, e.g. {@code http://127.0.0.1:9000} (default: AWS). */
        public Builder s3Endpoint(String url) {
            this.s3Endpoint = url;
            return this;
        }

        /** Take {@code s3://} volumes another cache owns (a deliberate failover; default false). */
        public Builder takeOver(boolean newTakeOver) {
            this.takeOver = newTakeOver;
            return this;
        }

        /** With a new cache file, overwrite backing stores that hold blockcache metadata (default false). */
        public Builder force(boolean newForce) {
            this.force = newForce;
            return this;
        }

        /** The NBD client's request timeout for {@code nbd://} backings, in ms (default 0: 60 s). */
        public Builder nbdRequestTimeoutMillis(long millis) {
            this.nbdRequestTimeoutMillis = millis;
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
                    completionExecutor, s3Endpoint, takeOver, force, nbdRequestTimeoutMillis);
        }
    }
}

package io.blockcache.embed;

import io.blockcache.device.IoResult;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Knob;
import io.blockcache.host.CacheHost;
import io.blockcache.host.HostException;
import io.blockcache.host.HostFiles;
import io.blockcache.log.EventSink;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A write-back block cache embedded in an application: one cache file caching one or more backing files, each
 * served as a {@link CachedVolume}. {@link #open} creates and formats missing files, or recovers existing ones
 * (after a crash too); {@link #close} stops cleanly. One loop thread, owned by this object, runs the cache.
 *
 * <pre>{@code
 * try (BlockCache cache = BlockCache.open(BlockCacheConfig.builder(Path.of("cache.img"))
 *         .backing("disk", Path.of("disk.img")).build())) {
 *     CachedVolume disk = cache.volume("disk");
 *     disk.write(0, ByteBuffer.wrap(new byte[4096])).join();
 *     disk.flush().join();
 * }
 * }</pre>
 *
 * <p>Thread rule: any thread. Requests go to the loop and come back as futures; at most
 * {@link #REQUESTS_IN_FLIGHT_MAX} are in flight per cache, and a caller that would exceed it waits for a slot.
 */
public final class BlockCache implements AutoCloseable {
    /** Requests in flight per cache before a caller waits: 1024, four times what 32 fio jobs at QD32 keep busy. */
    public static final int REQUESTS_IN_FLIGHT_MAX = 1024;
    /** How long {@link #close} waits for requests in flight before shutting down anyway. */
    public static final Duration CLOSE_IN_FLIGHT_WAIT = Duration.ofSeconds(30);

    private final CacheHost host;
    private final Requests requests;
    private final Map<String, CachedVolume> volumes = new LinkedHashMap<>();
    private boolean closed;

    private BlockCache(CacheHost host, Requests requests) {
        this.host = host;
        this.requests = requests;
    }

    /**
     * Opens the cache described by {@code config}: creates and formats it when its cache file is absent (with
     * the backing files, created sparse if absent too), recovers it otherwise, then sets the configured knobs.
     *
     * @throws BlockCacheException with a one-line reason (a missing backing file, a foreign or resized one, a
     *     corrupt journal, a refused knob ...); nothing stays open
     */
    public static BlockCache open(BlockCacheConfig config) throws BlockCacheException {
        HostFiles files = HostFiles.withLocations(config.cacheFile(), config.cacheSizeBytes(),
                BlockCacheConfig.remote(config.backings(), config.s3Endpoint(), config.takeOver(),
                        config.nbdRequestTimeoutMillis()), config.backingSizeBytes(), CacheSetOptions.defaults()
                        .withMode(CacheMode.valueOf(config.mode().toUpperCase(Locale.ROOT))), config.knobs(),
                config.force());
        CacheHost host;
        try {
            host = CacheHost.open(files, "blockcache-embed-loop", EventSink.NONE, fraction -> { });
        } catch (HostException e) {
            throw new BlockCacheException(e.getMessage());
        }
        BlockCache cache = new BlockCache(host, new Requests(host.loop(), config.completionExecutor(),
                REQUESTS_IN_FLIGHT_MAX));
        try {
            cache.describeVolumes();
        } catch (BlockCacheException e) {
            host.close();
            throw e;
        }
        cache.requests.watch(host.loop());
        return cache;
    }

    private void describeVolumes() throws BlockCacheException {
        Map<String, Long> sizes = call(done -> {
            Map<String, Long> found = new LinkedHashMap<>();
            CacheSet set = host.cacheSet();
            for (String name : set.exportNames()) {
                found.put(name, set.volume(name).sizeBytes());
            }
            done.accept(found);
        });
        for (Map.Entry<String, Long> entry : sizes.entrySet()) {
            Volume volume = host.cacheSet().volume(entry.getKey()); // the reference only; used on the loop
            volumes.put(entry.getKey(), new CachedVolume(entry.getKey(), volume, entry.getValue(), requests));
        }
    }

    /** The volume names, in the order the cache records them. */
    public List<String> volumeNames() {
        return List.copyOf(volumes.keySet());
    }

    /**
     * The volume named {@code name}.
     *
     * @throws IllegalArgumentException if there is none, naming those there are
     */
    public CachedVolume volume(String name) {
        CachedVolume volume = volumes.get(name);
        if (volume == null) {
            throw new IllegalArgumentException("no volume named \"" + name + "\"; volumes: " + volumes.keySet());
        }
        return volume;
    }

    /** A live knob's value (names as {@code blockcache get} lists them, e.g. {@code volume.disk.mode}). */
    public String knob(String name) throws BlockCacheException {
        String value = call(done -> {
            Knob knob = host.cacheSet().knobs().find(name);
            done.accept(knob == null ? null : knob.get());
        });
        if (value == null) {
            throw new BlockCacheException("no knob named \"" + name + "\"");
        }
        return value;
    }

    /** Changes a live knob, e.g. {@code setKnob("volume.disk.mode", "writethrough")}. */
    public void setKnob(String name, String value) throws BlockCacheException {
        String problem;
        try {
            problem = host.applyKnobs(Map.of(name, value));
        } catch (HostException e) {
            throw new BlockCacheException(e.getMessage());
        }
        if (problem != null) {
            throw new BlockCacheException(problem);
        }
    }

    /**
     * Stops cleanly: refuses new requests, waits (at most {@link #CLOSE_IN_FLIGHT_WAIT}) for those in flight,
     * commits the journal, writes a checkpoint, marks the cache clean and closes the files. Dirty data stays in
     * the cache file and is written back after the next open. Idempotent.
     *
     * @throws BlockCacheException if the clean stop failed (the next open then recovers from the journal)
     */
    @Override
    public synchronized void close() throws BlockCacheException {
        if (closed) {
            return;
        }
        closed = true;
        requests.refuse("the cache is closed");
        try {
            requests.awaitIdle(CLOSE_IN_FLIGHT_WAIT);
            IoResult result = host.shutdown();
            if (!result.ok()) {
                throw new BlockCacheException("clean shutdown failed: " + result.message()
                        + "; the next open recovers from the journal");
            }
        } catch (HostException e) {
            throw new BlockCacheException(e.getMessage() + "; the next open recovers from the journal");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BlockCacheException("interrupted while closing; the next open recovers from the journal");
        } finally {
            host.close();
        }
    }

    private <T> T call(java.util.function.Consumer<java.util.function.Consumer<T>> operation)
            throws BlockCacheException {
        try {
            return host.onLoop(operation);
        } catch (HostException e) {
            throw new BlockCacheException(e.getMessage());
        }
    }
}

package io.blockcache.admin;

import io.blockcache.device.FileSpace;
import io.blockcache.device.ObjectStoreStats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Where in a {@link StatsSnapshot} a metric is read from, which label tells its instances apart ({@code volume},
 * {@code file}, or none for the cache set's own numbers), and where the same object is in the {@code /api/stats}
 * document ({@link #jsonPath}: {@code []} marks an array with one element per instance, in the same order).
 *
 * @param <T> the snapshot part a descriptor of this scope reads
 * @param jsonPath the object in {@code /api/stats}, e.g. {@code volumes[].writeback}
 * @param labelName the label of an instance, or null where there is one instance at most
 * @param instances the instances in one snapshot (none where the part is absent: no NBD server, no damage map)
 *
 * <p>Thread rule: any thread (constants; snapshots are immutable).
 */
public record MetricScope<T>(String jsonPath, String labelName,
                             Function<StatsSnapshot, List<Instance<T>>> instances) {
    /** One volume's front end. */
    public static final MetricScope<StatsSnapshot.VolumeSnapshot> VOLUME = new MetricScope<>("volumes[]", "volume",
            s -> perVolume(s, v -> v));
    /** One volume's writeback. */
    public static final MetricScope<WritebackSnapshot> WRITEBACK = new MetricScope<>("volumes[].writeback", "volume",
            s -> perVolume(s, StatsSnapshot.VolumeSnapshot::writeback));
    /** The damage map of a volume that has one. */
    public static final MetricScope<StatsSnapshot.DamageMapSnapshot> DAMAGE_MAP = new MetricScope<>(
            "volumes[].damageMap", "volume", s -> perVolume(s, StatsSnapshot.VolumeSnapshot::damageMap));
    /** The cache device, its buckets and journal. */
    public static final MetricScope<StatsSnapshot.CacheSnapshot> CACHE = new MetricScope<>("cache", null,
            s -> single(s.cache()));
    /** The cache device's own counters. */
    public static final MetricScope<StatsSnapshot.DeviceSnapshot> CACHE_DEVICE = new MetricScope<>("cache.device", null,
            s -> single(s.cache().device()));
    /** Garbage collection of the cache. */
    public static final MetricScope<GcSnapshot> GC = new MetricScope<>("gc", null, s -> single(s.gc()));
    /** The NBD server beside the admin API, if any. */
    public static final MetricScope<NbdSnapshot> NBD = new MetricScope<>("nbd", null, s -> single(s.nbd()));
    /** The admin API's own counters, if known. */
    public static final MetricScope<StatsSnapshot.AdminSnapshot> ADMIN = new MetricScope<>("admin", null,
            s -> single(s.admin()));
    /** One local cache or backing file. */
    public static final MetricScope<FileSpace> FILE = new MetricScope<>("files[]", "file",
            s -> s.files().stream().map(f -> new Instance<>(f.label(), f)).toList());
    /** One volume's backing device. */
    public static final MetricScope<StatsSnapshot.DeviceSnapshot> BACKING = new MetricScope<>("backing[]", "volume",
            s -> perBacking(s, d -> d));
    /** The NBD client of an {@code nbd://} backing. */
    public static final MetricScope<StatsSnapshot.RemoteSnapshot> REMOTE = new MetricScope<>("backing[].remote",
            "volume", s -> perBacking(s, StatsSnapshot.DeviceSnapshot::remote));
    /** The S3 device of an {@code s3://} backing. */
    public static final MetricScope<ObjectStoreStats> S3 = new MetricScope<>("backing[].s3", "volume",
            s -> perBacking(s, StatsSnapshot.DeviceSnapshot::objectStore));

    /**
     * One instance of a scope.
     *
     * @param label the value of the scope's label (null where the scope has none)
     * @param part what descriptors read
     */
    public record Instance<T>(String label, T part) {
    }

    private static <T> List<Instance<T>> single(T part) {
        return part == null ? List.of() : List.of(new Instance<>(null, part));
    }

    private static <T> List<Instance<T>> perVolume(StatsSnapshot stats,
                                                   Function<StatsSnapshot.VolumeSnapshot, T> part) {
        List<Instance<T>> instances = new ArrayList<>(stats.volumes().size());
        for (StatsSnapshot.VolumeSnapshot volume : stats.volumes()) {
            T value = part.apply(volume);
            if (value != null) {
                instances.add(new Instance<>(volume.name(), value));
            }
        }
        return instances;
    }

    private static <T> List<Instance<T>> perBacking(StatsSnapshot stats,
                                                    Function<StatsSnapshot.DeviceSnapshot, T> part) {
        List<Instance<T>> instances = new ArrayList<>(stats.backings().size());
        for (StatsSnapshot.DeviceSnapshot device : stats.backings()) {
            T value = part.apply(device);
            if (value != null) {
                instances.add(new Instance<>(device.name(), value));
            }
        }
        return instances;
    }
}

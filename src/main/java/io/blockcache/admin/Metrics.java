package io.blockcache.admin;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every metric of blockcache, in the order {@code /metrics} lists them: the catalogue {@link PrometheusText}
 * renders and {@code MetricDescriptorsTest} checks against {@code /api/stats} and docs/OPERATIONS.md §7. Adding a
 * metric is one declaration in one of the tables ({@link VolumeMetrics}, {@link WritebackMetrics},
 * {@link CacheMetrics}, {@link BackingMetrics}, {@link ServerMetrics}) plus its place in {@link StatsJson}.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class Metrics {
    /** All descriptors; names are unique, deprecated names included. */
    public static final List<MetricDescriptor<?>> ALL = all();

    private Metrics() {
    }

    private static List<MetricDescriptor<?>> all() {
        List<MetricDescriptor<?>> all = new ArrayList<>();
        all.addAll(VolumeMetrics.ALL);
        all.addAll(CacheMetrics.CACHE_ALL);
        all.addAll(BackingMetrics.ALL);
        all.addAll(WritebackMetrics.ALL);
        all.addAll(CacheMetrics.GC_ALL);
        all.addAll(ServerMetrics.NBD_ALL);
        all.add(CacheMetrics.FILE_SPARSE_BEYOND_FREE);
        all.addAll(ServerMetrics.ADMIN_ALL);
        Set<String> names = new HashSet<>();
        for (MetricDescriptor<?> metric : all) {
            if (metric.series().isEmpty()) {
                throw new IllegalStateException(metric.name() + " declares no series: nothing to read");
            }
            if (!names.add(metric.name())) {
                throw new IllegalStateException("two metrics named " + metric.name());
            }
        }
        for (MetricDescriptor<?> metric : all) {
            // Two new names may share one old family (gc_duration_seconds{stat}); an old name may not be a new one.
            if (metric.deprecatedAs() != null && names.contains(metric.deprecatedAs().name())) {
                throw new IllegalStateException(metric.deprecatedAs().name() + " is both current and deprecated");
            }
        }
        return List.copyOf(all);
    }
}

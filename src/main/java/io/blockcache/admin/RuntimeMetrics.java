package io.blockcache.admin;

import io.blockcache.admin.MetricFamilies.Sample;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * The families of {@code /metrics} that are no {@link MetricDescriptor} because no {@link StatsSnapshot} holds them:
 * {@code blockcache_build_info} (the jar's version, the Java runtime's) and the process and JVM families of the
 * Prometheus Java client's instrumentation ({@code process_*}, {@code jvm_*}: CPU, memory, buffer pools, GC,
 * threads; docs/OPERATIONS.md §7 "Build, process and JVM"). Why the client's instrumentation: the family names
 * every JVM dashboard and alert already uses, kept by the client's maintainers.
 *
 * <p>Thread rule: any thread; the JVM collectors read the JVM's management beans, never the cache's loop.
 */
final class RuntimeMetrics {
    static final String BUILD_INFO = "blockcache_build_info";
    /** The version Maven wrote into the resource at build time, or "unknown" (a build that skipped filtering). */
    static final String VERSION = version();

    /** One registry for the process: the client refuses to register the JVM collectors twice in one. */
    private static final PrometheusRegistry JVM = jvm();

    private RuntimeMetrics() {
    }

    /** Adds the build information and the process and JVM families, as they are now. */
    static void addTo(MetricFamilies families) {
        families.gauge(BUILD_INFO, "Always 1: the version of blockcache and of the Java runtime it runs on.",
                List.of(Sample.of(1, "version", VERSION, "java_version", Runtime.version().toString())));
        for (MetricSnapshot family : JVM.scrape()) {
            families.add(family);
        }
    }

    private static PrometheusRegistry jvm() {
        PrometheusRegistry registry = new PrometheusRegistry();
        JvmMetrics.builder().register(registry);
        return registry;
    }

    private static String version() {
        Properties build = new Properties();
        try (InputStream in = RuntimeMetrics.class.getResourceAsStream("build.properties")) {
            if (in == null) {
                return "unknown";
            }
            build.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("reading build.properties from the jar", e);
        }
        String version = build.getProperty("version", "unknown");
        return version.startsWith("${") ? "unknown" : version;
    }
}

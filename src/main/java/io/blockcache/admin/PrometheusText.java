package io.blockcache.admin;

import io.blockcache.admin.MetricFamilies.Sample;
import io.blockcache.device.DurationHistogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a {@link StatsSnapshot} in the Prometheus text exposition format 0.0.4 through the Prometheus
 * Java client's model and writer ({@code prometheus-metrics-exposition-textformats}), one family per
 * {@link MetricDescriptor} of {@link Metrics#ALL}, in base units (bytes, seconds, ratios), then the deprecated
 * families (old names, old units) one release after their renaming, then build information and the process and JVM
 * families ({@link RuntimeMetrics}).
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class PrometheusText {
    /** The Content-Type Prometheus expects for this format. */
    static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();
    private static final int OUTPUT_BYTES_INITIAL = 16 * 1024;

    private final MetricFamilies families = new MetricFamilies();
    /** Deprecated families by old name, in the order first met; two descriptors may feed one. */
    private final Map<String, DeprecatedFamily> deprecated = new LinkedHashMap<>();

    private PrometheusText() {
    }

    /** The whole exposition. */
    static String render(StatsSnapshot stats) {
        PrometheusText text = new PrometheusText();
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            if (!metric.scope().instances().apply(stats).isEmpty() || metric.scope().labelName() != null) {
                text.family(metric, stats);
            }
        }
        for (Map.Entry<String, DeprecatedFamily> old : text.deprecated.entrySet()) {
            text.add(old.getValue().kind, old.getKey(), "Deprecated since 2026-12-07 (removed in the next release):"
                    + " use " + String.join(" and ", old.getValue().successors) + ", the same in base units.",
                    old.getValue().samples);
        }
        RuntimeMetrics.addTo(text.families);
        ByteArrayOutputStream out = new ByteArrayOutputStream(OUTPUT_BYTES_INITIAL);
        try {
            WRITER.write(out, text.families.snapshots());
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * One descriptor's family: a sample per instance of its scope and series. A scope with a label (per volume,
     * per file) always has its family, with no samples where it has no instances; a scope of one instance that is
     * absent (no NBD server) has none.
     */
    private <T> void family(MetricDescriptor<T> metric, StatsSnapshot stats) {
        List<MetricScope.Instance<T>> instances = metric.scope().instances().apply(stats);
        if (metric.kind() == MetricDescriptor.Kind.SUMMARY) {
            summary(metric, instances);
            return;
        }
        if (metric.kind() == MetricDescriptor.Kind.HISTOGRAM) {
            histogram(metric, instances);
            return;
        }
        List<Sample> samples = new ArrayList<>();
        List<Sample> oldSamples = new ArrayList<>();
        MetricDescriptor.OldName old = metric.deprecatedAs();
        for (MetricScope.Instance<T> instance : instances) {
            if (!metric.presentIn(instance.part())) {
                continue;
            }
            for (MetricDescriptor.Series<T> series : metric.series()) {
                double value = series.read().applyAsDouble(instance.part());
                Labels labels = labels(metric, instance, series);
                samples.add(new Sample(labels, metric.unit().convert(value, metric.baseUnit())));
                if (old != null) {
                    Labels oldLabels = old.labelName() == null ? labels : labels.add(old.labelName(), old.labelValue());
                    oldSamples.add(new Sample(oldLabels, metric.unit().convert(value, old.unit())));
                }
            }
        }
        add(metric.kind(), metric.name(), metric.help(), samples);
        if (old != null) {
            DeprecatedFamily family = deprecated.computeIfAbsent(old.name(),
                    name -> new DeprecatedFamily(metric.kind()));
            family.successors.add(metric.name());
            family.samples.addAll(oldSamples);
        }
    }

    private <T> void summary(MetricDescriptor<T> metric, List<MetricScope.Instance<T>> instances) {
        SummarySnapshot.Builder family = SummarySnapshot.builder().name(metric.name()).help(metric.help());
        for (MetricScope.Instance<T> instance : instances) {
            List<Quantile> quantiles = new ArrayList<>();
            for (MetricDescriptor.Series<T> series : metric.series()) {
                quantiles.add(new Quantile(Double.parseDouble(series.labelValue()),
                        metric.unit().convert(series.read().applyAsDouble(instance.part()), metric.baseUnit())));
            }
            StatsSnapshot.LatencySummary summary = metric.summaryOf(instance.part());
            family.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                    .labels(labels(metric, instance, null)).quantiles(Quantiles.of(quantiles))
                    .sum(metric.unit().convert(summary.sumNs(), metric.baseUnit())).count(summary.count()).build());
        }
        families.add(family.build());
    }

    /** A classic histogram: a data point per instance and series, its bucket bounds in the base unit. */
    private <T> void histogram(MetricDescriptor<T> metric, List<MetricScope.Instance<T>> instances) {
        double[] upperBounds = new double[DurationHistogram.BUCKETS];
        for (int bucket = 0; bucket < upperBounds.length; bucket++) {
            long boundNs = DurationHistogram.upperBoundNs(bucket);
            upperBounds[bucket] = boundNs == Long.MAX_VALUE ? Double.POSITIVE_INFINITY
                    : metric.unit().convert(boundNs, metric.baseUnit());
        }
        HistogramSnapshot.Builder family = HistogramSnapshot.builder().name(metric.name()).help(metric.help());
        for (MetricScope.Instance<T> instance : instances) {
            for (MetricDescriptor.Series<T> series : metric.series()) {
                DurationHistogram.Counts counts = metric.histogramOf(instance.part(), series.labelValue());
                family.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .labels(labels(metric, instance, series))
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(upperBounds, counts.bucketCounts()))
                        .sum(metric.unit().convert(counts.sumNs(), metric.baseUnit())).build());
            }
        }
        families.add(family.build());
    }

    private static <T> Labels labels(MetricDescriptor<T> metric, MetricScope.Instance<T> instance,
                                     MetricDescriptor.Series<T> series) {
        Labels labels = metric.scope().labelName() == null ? Labels.EMPTY
                : Labels.of(metric.scope().labelName(), instance.label());
        if (series != null && series.labelValue() != null) {
            labels = labels.add(metric.labelName(), series.labelValue());
        }
        return labels;
    }

    private void add(MetricDescriptor.Kind kind, String name, String help, List<Sample> samples) {
        if (kind == MetricDescriptor.Kind.COUNTER) {
            families.counter(name, help, samples);
        } else {
            families.gauge(name, help, samples);
        }
    }

    /** An old family's samples, and the names that replace it. */
    private static final class DeprecatedFamily {
        final MetricDescriptor.Kind kind;
        final List<String> successors = new ArrayList<>();
        final List<Sample> samples = new ArrayList<>();

        DeprecatedFamily(MetricDescriptor.Kind kind) {
            this.kind = kind;
        }
    }
}

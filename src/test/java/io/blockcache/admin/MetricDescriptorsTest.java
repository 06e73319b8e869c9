package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every metric descriptor of {@link Metrics#ALL} against what is generated from it and what documents it: adding a
 * metric is one declaration plus its use, and these checks say what else it needs.
 */
class MetricDescriptorsTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-z0-9_]+)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");

    private final StatsSnapshot stats = StatsSamples.full(1000);

    @Test
    void metricsHasEverySeriesOfEveryDescriptorInItsBaseUnit() {
        // Proves /metrics has a family of the descriptor's name and kind with one sample per instance and series,
        // valued in the base unit, and the deprecated family with the same sample in its old unit.
        String text = PrometheusText.render(stats);
        Map<String, Double> samples = samples(text);
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            String type = metric.kind().name().toLowerCase(java.util.Locale.ROOT);
            assertThat(text).as(metric.name()).contains("# TYPE " + metric.name() + " " + type + "\n");
            for (Expected sample : expected(metric)) {
                assertThat(samples).as(metric.name()).containsEntry(sample.key(), sample.value());
            }
        }
        assertThat(samples).as("a sample of the full snapshot in sectors").noneSatisfy(
                (key, value) -> assertThat(key).contains("_sectors").doesNotContain("{"));
    }

    @Test
    void apiStatsHasEverySeriesOfEveryDescriptorAtItsKey() throws Exception {
        // Proves /api/stats has each descriptor's JSON key in its scope's object of every instance, valued in the
        // descriptor's JSON unit and form (a derived one: the key is there).
        JsonNode root = new ObjectMapper().readTree(StatsJson.render(stats));
        int checked = 0;
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            checked += checkJson(root, metric);
        }
        assertThat(checked).isGreaterThan(150);
    }

    /**
     * Numbers (and flags) of {@code /api/stats} that are no metric of their own, each with its reason; any other
     * number must be written through a descriptor. The drain object is the drain job's own document.
     */
    private static final Set<String> NOT_METRICS = Set.of(
            "admin.tokenRequired", // a setting
            "backing[].s3.stagedChunksMax", "cache.buckets.total", // bounds and sizes
            "files[].allocatedBytes", "files[].fileSystemFreeBytes", "files[].sizeBytes", // behind sparse_beyond_free
            "volumes[].latency.requests", // the latency summary's _count
            "volumes[].writeback.backingQueueDepth", // blockcache_backing_requests_in_flight, as writeback sees it
            "volumes[].writeback.dirtyBytes", // blockcache_dirty_bytes
            "volumes[].writeback.rateSectorsPerSecond", // rate.rateSectorsPerSecond again, where old readers look
            "volumes[].writeback.errors.total", // the sum of blockcache_writeback_errors_total's kinds
            // Not exported yet: a peak, epoch numbers, a wait count now, a flag of the rate controller.
            "volumes[].writeback.keysInFlightPeak", "volumes[].writeback.epochs.current",
            "volumes[].writeback.epochs.oldestDirty", "volumes[].writeback.epochs.requestsWaiting",
            "volumes[].writeback.rate.integralFrozen");

    @Test
    void everyNumberInApiStatsIsAMetricOrNamedAsNone() throws Exception {
        // Proves a number added to /api/stats by hand, past the descriptors, is caught: each number or flag of the
        // full snapshot's document is a descriptor's key or in NOT_METRICS (drain fields aside).
        Set<String> leaves = new java.util.TreeSet<>();
        leaves(new ObjectMapper().readTree(StatsJson.render(stats)), "", leaves);
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            metric.series().forEach(series -> leaves.remove(metric.scope().jsonPath() + "." + series.jsonPath()));
        }
        leaves.removeIf(path -> path.startsWith("volumes[].writeback.drain."));
        assertThat(leaves).containsExactlyInAnyOrderElementsOf(NOT_METRICS);
    }

    private static void leaves(JsonNode node, String path, Set<String> out) {
        if (node.isObject()) {
            node.properties().forEach(member -> leaves(member.getValue(),
                    path.isEmpty() ? member.getKey() : path + "." + member.getKey(), out));
        } else if (node.isArray()) {
            node.forEach(element -> leaves(element, path + "[]", out));
        } else if (node.isNumber() || node.isBoolean()) {
            out.add(path);
        }
    }

    @Test
    void operationsDocumentsEveryMetricAndEveryDeprecatedName() throws Exception {
        // Proves docs/OPERATIONS.md §7 has a row for each metric, and each old name in the renaming table with its
        // successor.
        String doc = Files.readString(Path.of("docs/OPERATIONS.md"));
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            assertThat(doc).as("a row for " + metric.name()).contains("| `" + metric.name() + "` |");
            MetricDescriptor.OldName old = metric.deprecatedAs();
            if (old != null) {
                assertThat(doc).as("the renaming of " + old.name()).containsPattern(
                        "\\| `" + old.name() + "(\\{[^`]*})?` \\| `" + metric.name() + "` \\|");
            }
        }
    }

    @Test
    void theDashboardReadsOnlyMetricsOfTheCatalogue() {
        // Proves the dashboard's script names metrics that exist (a typo would stop its poll), and its generated
        // table carries each metric's key and the factor to its base unit.
        java.util.Set<String> names = new java.util.HashSet<>();
        Metrics.ALL.forEach(metric -> names.add(metric.name()));
        Matcher used = Pattern.compile("'(blockcache_[a-z0-9_]+)'").matcher(Dashboard.HTML);
        int uses = 0;
        while (used.find()) {
            assertThat(names).as("the dashboard's metric " + used.group(1)).contains(used.group(1));
            uses++;
        }
        assertThat(uses).isGreaterThan(30);
        assertThat(Dashboard.HTML).contains("\"blockcache_read_hit_bytes_total\":{\"p\":{\"\":\"readHitSectors\"},"
                + "\"f\":512.0}", "\"0.99\":\"latency.p99Us\"");
    }

    @Test
    void aDescriptorRefusesANameThatHidesItsUnit() {
        // Proves names keep Prometheus' rules: the base unit last (never sectors), _total on counters only.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MetricDescriptor.counter(MetricScope.GC,
                "blockcache_x_sectors_total", MetricUnit.SECTORS, "help")).hasMessageContaining("_bytes");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MetricDescriptor.gauge(MetricScope.GC,
                "blockcache_x_total", MetricUnit.COUNT, "help")).hasMessageContaining("_total");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MetricDescriptor.gauge(MetricScope.GC,
                "blockcache_x_seconds", MetricUnit.COUNT, "help")).hasMessageContaining("no unit");
    }

    private <T> int checkJson(JsonNode root, MetricDescriptor<T> metric) {
        int checked = 0;
        for (MetricScope.Instance<T> instance : metric.scope().instances().apply(stats)) {
            JsonNode object = objectOf(root, metric.scope().jsonPath(), instance.label());
            for (MetricDescriptor.Series<T> series : metric.series()) {
                JsonNode at = object;
                for (String key : series.jsonPath().split("\\.")) {
                    assertThat(at.has(key)).as(metric.name() + " at " + series.jsonPath()).isTrue();
                    at = at.get(key);
                }
                double expected = metric.seriesUnit().convert(series.read().applyAsDouble(instance.part()),
                        metric.jsonUnit());
                switch (metric.jsonForm()) {
                    case INTEGER -> assertThat(at.isIntegralNumber() ? at.asLong() : null).as(metric.name())
                            .isEqualTo((long) expected);
                    case NUMBER -> assertThat(at.isNumber() ? at.asDouble() : null).as(metric.name())
                            .isEqualTo(expected);
                    case BOOLEAN -> assertThat(at.isBoolean() ? at.asBoolean() : null).as(metric.name())
                            .isEqualTo(expected != 0);
                    case DERIVED -> assertThat(at).as(metric.name()).isNotNull();
                }
                checked++;
            }
        }
        return checked;
    }

    /** The object at a scope's path; an array element is the one whose name (or file) is the label. */
    private static JsonNode objectOf(JsonNode root, String path, String label) {
        JsonNode at = root;
        for (String part : path.split("\\.")) {
            if (!part.endsWith("[]")) {
                at = at.get(part);
                continue;
            }
            JsonNode found = null;
            for (JsonNode element : at.get(part.substring(0, part.length() - 2))) {
                String name = element.has("file") ? element.path("file").asText() : element.path("name").asText();
                if (label.equals(name)) {
                    found = element;
                }
            }
            assertThat(found).as(path + " of " + label).isNotNull();
            at = found;
        }
        return at;
    }

    private record Expected(String key, double value) {
    }

    /** The samples a descriptor must produce from {@link #stats}, keyed as {@link #samples} keys them. */
    private <T> List<Expected> expected(MetricDescriptor<T> metric) {
        List<Expected> all = new ArrayList<>();
        MetricDescriptor.OldName old = metric.deprecatedAs();
        for (MetricScope.Instance<T> instance : metric.scope().instances().apply(stats)) {
            if (!metric.presentIn(instance.part())) {
                continue;
            }
            for (MetricDescriptor.Series<T> series : metric.series()) {
                Map<String, String> labels = new HashMap<>();
                if (metric.scope().labelName() != null) {
                    labels.put(metric.scope().labelName(), instance.label());
                }
                if (series.labelValue() != null) {
                    labels.put(metric.labelName(), series.labelValue());
                }
                double value = series.read().applyAsDouble(instance.part());
                if (metric.kind() == MetricDescriptor.Kind.HISTOGRAM) {
                    // A histogram's series reads its count; the sum is in the base unit, +Inf holds every duration.
                    io.blockcache.device.DurationHistogram.Counts counts = metric.histogramOf(instance.part(),
                            series.labelValue());
                    all.add(new Expected(key(metric.name() + "_count", labels), value));
                    all.add(new Expected(key(metric.name() + "_sum", labels), counts.sumNs() / 1e9));
                    labels.put("le", "+Inf");
                    all.add(new Expected(key(metric.name() + "_bucket", labels), counts.count()));
                    continue;
                }
                all.add(new Expected(key(metric.name(), labels), metric.unit().convert(value, metric.baseUnit())));
                if (old != null) {
                    if (old.labelName() != null) {
                        labels.put(old.labelName(), old.labelValue());
                    }
                    all.add(new Expected(key(old.name(), labels), metric.unit().convert(value, old.unit())));
                }
            }
        }
        return all;
    }

    /** Every sample line of an exposition: name and sorted labels to value. */
    private static Map<String, Double> samples(String text) {
        Map<String, Double> samples = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.matches()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            Matcher label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
            samples.put(key(sample.group(1), labels), Double.parseDouble(sample.group(3)));
        }
        return samples;
    }

    private static String key(String name, Map<String, String> labels) {
        return name + new java.util.TreeMap<>(labels);
    }
}

package io.blockcache.admin;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects counter and gauge families as the Prometheus Java client's snapshot model, which then owns
 * naming rules, label escaping and number formatting. A family is added with all its samples at once, so
 * every family has exactly one HELP and one TYPE line however many volumes there are.
 *
 * <p>Thread rule: one thread at a time (a collector is used by one render call).
 */
final class MetricFamilies {
    private static final String COUNTER_SUFFIX = "_total";

    private final List<MetricSnapshot> families = new ArrayList<>();

    /** One sample of a family: its labels (alternating names and values) and its value. */
    record Sample(Labels labels, double value) {
        static Sample of(double value, String... labelNamesAndValues) {
            return new Sample(Labels.of(labelNamesAndValues), value);
        }
    }

    /**
     * Adds a counter family. {@code name} ends in {@code _total} as it is exposed; the client's model
     * takes the name without it and writes it back.
     */
    void counter(String name, String help, List<Sample> samples) {
        if (!name.endsWith(COUNTER_SUFFIX)) {
            throw new IllegalArgumentException("counter names end in " + COUNTER_SUFFIX + ": " + name);
        }
        CounterSnapshot.Builder family = CounterSnapshot.builder()
                .name(name.substring(0, name.length() - COUNTER_SUFFIX.length())).help(help);
        for (Sample sample : samples) {
            family.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(sample.labels()).value(sample.value()).build());
        }
        families.add(family.build());
    }

    /** Adds a gauge family. */
    void gauge(String name, String help, List<Sample> samples) {
        GaugeSnapshot.Builder family = GaugeSnapshot.builder().name(name).help(help);
        for (Sample sample : samples) {
            family.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(sample.labels()).value(sample.value()).build());
        }
        families.add(family.build());
    }

    /** Adds a family built directly on the client's model (a summary, for instance). */
    void add(MetricSnapshot family) {
        families.add(family);
    }

    MetricSnapshots snapshots() {
        return new MetricSnapshots(families);
    }
}

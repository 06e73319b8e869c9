package io.blockcache.admin;

import io.blockcache.device.DurationHistogram;
import io.blockcache.json.JsonWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * One metric, declared once (the model is Aeron's counter descriptors): its Prometheus name, kind, unit, help, labels,
 * how to read it from a {@link StatsSnapshot}, and where it is in {@code /api/stats}. {@code /metrics}
 * ({@link PrometheusText}) is generated from the descriptors; {@code /api/stats} ({@link StatsJson}) writes each
 * metric's key and value through its descriptor; {@code blockcache stats} reads the JSON back through them. The
 * catalogue is {@link Metrics#ALL}; docs/OPERATIONS.md §7 has a row for each ({@code MetricDescriptorsTest}).
 *
 * <p>A descriptor reads its value in the unit the snapshot holds ({@link #unit}: sectors, nanoseconds, percent);
 * {@code /metrics} exports it in the base unit ({@link MetricUnit#base}: bytes, seconds, ratio) under a name that
 * ends in that unit, and JSON shows it in {@link #jsonUnit} (by default the snapshot's unit: the keys of
 * {@code /api/stats} name their unit, {@code readHitSectors}, and stay as they are for the scripts that read them).
 * A family renamed for its unit keeps its old name one release as a deprecated series ({@link OldName}). A histogram
 * ({@link Kind#HISTOGRAM}) counts durations in {@link DurationHistogram}'s buckets; its series read how many there
 * were ({@link #seriesUnit}).
 *
 * <p>A descriptor with several series has one label ({@link #labelName}, e.g. {@code state}) telling them apart;
 * each series has its own JSON key. Immutable; built by the static factories and the {@code with}-style methods,
 * which each return a new descriptor.
 *
 * <p>Thread rule: any thread.
 *
 * @param <T> the snapshot part it reads ({@link MetricScope})
 */
public final class MetricDescriptor<T> {
    /** The Prometheus metric type. */
    public enum Kind { COUNTER, GAUGE, SUMMARY, HISTOGRAM }

    /** How {@code /api/stats} writes a series' value. */
    public enum JsonForm {
        /** A whole number. */
        INTEGER,
        /** A number with a fraction. */
        NUMBER,
        /** {@code true} for any value but 0. */
        BOOLEAN,
        /**
         * The key holds what the metric is derived from (a text, or a number that may be null), written by
         * {@link StatsJson} itself; the descriptor only names where it is.
         */
        DERIVED
    }

    /**
     * One series: a label value (null for a descriptor without a label), its JSON key relative to the scope's object
     * (dots for nested objects: {@code rate.targetSectors}) and how to read it, in the descriptor's unit.
     */
    public record Series<T>(String labelValue, String jsonPath, ToDoubleFunction<T> read) {
        /** The member name within its JSON object: the last part of the path. */
        public String jsonKey() {
            return jsonPath.substring(jsonPath.lastIndexOf('.') + 1);
        }
    }

    /**
     * The name a family had before it was renamed for base units, exported one more release with the same samples
     * in its old {@code unit} (and, where it had one, its old label with a fixed value).
     */
    public record OldName(String name, MetricUnit unit, String labelName, String labelValue) {
    }

    private final MetricScope<T> scope;
    private final String name;
    private final Kind kind;
    private final MetricUnit unit;
    private final String help;
    private final String labelName;
    private final List<Series<T>> series;
    private final MetricUnit jsonUnit;
    private final JsonForm jsonForm;
    private final Predicate<T> present;
    private final Function<T, StatsSnapshot.LatencySummary> summary;
    private final OldName deprecated;
    private final BiFunction<T, String, DurationHistogram.Counts> histogram;

    private MetricDescriptor(MetricScope<T> scope, String name, Kind kind, MetricUnit unit, String help,
                             String labelName, List<Series<T>> series, MetricUnit jsonUnit, JsonForm jsonForm,
                             Predicate<T> present, Function<T, StatsSnapshot.LatencySummary> summary,
                             OldName deprecated, BiFunction<T, String, DurationHistogram.Counts> histogram) {
        this.scope = Objects.requireNonNull(scope);
        this.name = name;
        this.kind = kind;
        this.unit = unit;
        this.help = help;
        this.labelName = labelName;
        this.series = List.copyOf(series);
        this.jsonUnit = jsonUnit;
        this.jsonForm = jsonForm;
        this.present = present;
        this.summary = summary;
        this.deprecated = deprecated;
        this.histogram = histogram;
        MetricNames.check(name, kind, unit);
        if (help == null || help.isBlank()) {
            throw new IllegalArgumentException(name + ": a metric needs its help text");
        }
        if (jsonUnit.base() != seriesUnit().base()) {
            throw new IllegalArgumentException(name + ": JSON in " + jsonUnit + " cannot show " + unit);
        }
    }

    /** A counter; {@code name} ends in its base unit, then {@code _total}. */
    public static <T> MetricDescriptor<T> counter(MetricScope<T> scope, String name, MetricUnit unit, String help) {
        return new MetricDescriptor<>(scope, name, Kind.COUNTER, unit, help, null, List.of(), unit, form(unit),
                part -> true, null, null, null);
    }

    /** A gauge; {@code name} ends in its base unit. */
    public static <T> MetricDescriptor<T> gauge(MetricScope<T> scope, String name, MetricUnit unit, String help) {
        return new MetricDescriptor<>(scope, name, Kind.GAUGE, unit, help, null, List.of(), unit, form(unit),
                part -> true, null, null, null);
    }

    /**
     * A latency summary: its quantiles are the {@link #series} (label {@code quantile}, read in {@code unit}); its
     * sum and count come from {@code summary}.
     */
    public static <T> MetricDescriptor<T> summary(MetricScope<T> scope, String name, MetricUnit unit, String help,
                                                  Function<T, StatsSnapshot.LatencySummary> summary) {
        return new MetricDescriptor<>(scope, name, Kind.SUMMARY, unit, help, "quantile", List.of(), unit,
                JsonForm.NUMBER, part -> true, Objects.requireNonNull(summary), null, null);
    }

    /**
     * A histogram of durations in {@link DurationHistogram}'s buckets (nanoseconds; seconds on {@code /metrics}):
     * {@code counts} gives a series' counts from its label value (null for the one series of a descriptor without a
     * label). Each series reads, and {@code /api/stats} shows, its count of durations ({@link #seriesUnit}: a count).
     */
    public static <T> MetricDescriptor<T> histogram(MetricScope<T> scope, String name, String help,
                                                    BiFunction<T, String, DurationHistogram.Counts> counts) {
        return new MetricDescriptor<>(scope, name, Kind.HISTOGRAM, MetricUnit.NANOSECONDS, help, null, List.of(),
                MetricUnit.COUNT, JsonForm.INTEGER, part -> true, null, null, Objects.requireNonNull(counts));
    }

    /** This descriptor with its one series, at {@code jsonPath}. */
    public MetricDescriptor<T> json(String jsonPath, ToDoubleFunction<T> read) {
        if (labelName != null || !series.isEmpty()) {
            throw new IllegalStateException(name + ": a labelled metric declares series, not one value");
        }
        return withSeries(new Series<>(null, jsonPath, read));
    }

    /** This descriptor with the label that tells its series apart. */
    public MetricDescriptor<T> label(String label) {
        return new MetricDescriptor<>(scope, name, kind, unit, help, label, series, jsonUnit, jsonForm, present,
                summary, deprecated, histogram);
    }

    /** This descriptor with one more series: {@link #labelName} = {@code labelValue}, at {@code jsonPath}. */
    public MetricDescriptor<T> series(String labelValue, String jsonPath, ToDoubleFunction<T> read) {
        if (labelName == null) {
            throw new IllegalStateException(name + ": series need a label");
        }
        return withSeries(new Series<>(labelValue, jsonPath, read));
    }

    /** This descriptor with its JSON value in {@code unit} and {@code form}. */
    public MetricDescriptor<T> jsonAs(MetricUnit shownIn, JsonForm form) {
        return new MetricDescriptor<>(scope, name, kind, unit, help, labelName, series, shownIn, form, present,
                summary, deprecated, histogram);
    }

    /** This descriptor with its JSON written by {@link StatsJson} in a form of its own (a text, or null). */
    public MetricDescriptor<T> jsonDerived() {
        return jsonAs(jsonUnit, JsonForm.DERIVED);
    }

    /** This descriptor with samples only for the parts {@code where} holds for (absent otherwise). */
    public MetricDescriptor<T> only(Predicate<T> where) {
        return new MetricDescriptor<>(scope, name, kind, unit, help, labelName, series, jsonUnit, jsonForm, where,
                summary, deprecated, histogram);
    }

    /** This descriptor with its old name, exported one more release in the unit the snapshot holds. */
    public MetricDescriptor<T> deprecated(String oldName) {
        return deprecated(new OldName(oldName, unit, null, null));
    }

    /** This descriptor with its old family. */
    public MetricDescriptor<T> deprecated(OldName old) {
        return new MetricDescriptor<>(scope, name, kind, unit, help, labelName, series, jsonUnit, jsonForm, present,
                summary, old, histogram);
    }

    private MetricDescriptor<T> withSeries(Series<T> added) {
        List<Series<T>> all = new ArrayList<>(series);
        all.add(added);
        return new MetricDescriptor<>(scope, name, kind, unit, help, labelName, all, jsonUnit, jsonForm, present,
                summary, deprecated, histogram);
    }

    public MetricScope<T> scope() {
        return scope;
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The unit the snapshot holds the value in. */
    public MetricUnit unit() {
        return unit;
    }

    /**
     * The unit a {@link Series} reads its value in: the snapshot's {@link #unit}, but for a histogram, whose unit is
     * that of the durations it counts while its series read how many there were.
     */
    public MetricUnit seriesUnit() {
        return kind == Kind.HISTOGRAM ? MetricUnit.COUNT : unit;
    }

    /** The unit {@code /metrics} exports it in. */
    public MetricUnit baseUnit() {
        return unit.base();
    }

    public String help() {
        return help;
    }

    /** The label telling the series apart, or null for one series. */
    public String labelName() {
        return labelName;
    }

    public List<Series<T>> series() {
        return series;
    }

    /** The unit of the value in {@code /api/stats}. */
    public MetricUnit jsonUnit() {
        return jsonUnit;
    }

    public JsonForm jsonForm() {
        return jsonForm;
    }

    /** The old name, or null. */
    public OldName deprecatedAs() {
        return deprecated;
    }

    /** Whether {@code part} has a sample of this metric. */
    public boolean presentIn(T part) {
        return present.test(part);
    }

    /** The summary of {@code part} (a {@link Kind#SUMMARY} only). */
    public StatsSnapshot.LatencySummary summaryOf(T part) {
        return summary.apply(part);
    }

    /** The counts of the series labelled {@code labelValue} (null: the only one) of {@code part} (a histogram). */
    public DurationHistogram.Counts histogramOf(T part, String labelValue) {
        return histogram.apply(part, labelValue);
    }

    /** Writes each series as a member of the open JSON object, in the order declared. */
    public void writeJson(JsonWriter json, T part) {
        if (jsonForm == JsonForm.DERIVED) {
            throw new IllegalStateException(name + ": its JSON member is written by StatsJson");
        }
        for (Series<T> one : series) {
            double value = seriesUnit().convert(one.read().applyAsDouble(part), jsonUnit);
            json.name(one.jsonKey());
            switch (jsonForm) {
                case INTEGER -> json.value((long) value);
                case NUMBER -> json.value(value);
                case BOOLEAN -> json.value(value != 0);
                case DERIVED -> throw new IllegalStateException("unreachable");
            }
        }
    }

    /**
     * The value of the series labelled {@code labelValue} (null: the only one), in the base unit, read back from the
     * parsed JSON object of its scope (as {@code blockcache stats} has it); NaN where the member is absent or not a
     * number.
     */
    public double baseValueIn(Map<?, ?> scopeObject, String labelValue) {
        Object value = jsonValueIn(scopeObject, labelValue);
        return value instanceof Number number ? jsonUnit.convert(number.doubleValue(), seriesUnit().base())
                : Double.NaN;
    }

    /** The value of the only series in the base unit, read back from the parsed JSON object of its scope. */
    public double baseValueIn(Map<?, ?> scopeObject) {
        return baseValueIn(scopeObject, null);
    }

    /** The raw JSON value of a series (null: the only one) in the parsed JSON object of its scope, or null. */
    public Object jsonValueIn(Map<?, ?> scopeObject, String labelValue) {
        Object at = scopeObject;
        for (String key : seriesLabelled(labelValue).jsonPath().split("\\.")) {
            at = at instanceof Map<?, ?> map ? map.get(key) : null;
        }
        return at;
    }

    private Series<T> seriesLabelled(String labelValue) {
        for (Series<T> one : series) {
            if (Objects.equals(one.labelValue(), labelValue)) {
                return one;
            }
        }
        throw new IllegalArgumentException(name + " has no series " + labelName + "=" + labelValue);
    }

    private static JsonForm form(MetricUnit unit) {
        return unit == MetricUnit.BOOLEAN ? JsonForm.BOOLEAN : JsonForm.INTEGER;
    }

}

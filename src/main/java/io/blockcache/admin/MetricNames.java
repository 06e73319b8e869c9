package io.blockcache.admin;

import java.util.List;

/**
 * Prometheus' naming rules as {@code /metrics} keeps them, checked once per {@link MetricDescriptor}: the
 * {@code blockcache_} prefix, lower case, the base unit last ({@code _bytes}, {@code _seconds}, {@code _ratio},
 * {@code _bytes_per_second}), {@code _total} on counters and only on them, and never sectors.
 *
 * <p>Thread rule: pure.
 */
final class MetricNames {
    private static final String PREFIX = "blockcache_";
    private static final String COUNTER_SUFFIX = "_total";
    /** Unit words the name of a count must not end in. */
    private static final List<String> UNIT_WORDS = List.of("_bytes", "_seconds", "_ratio", "_sectors",
            "_per_second", "_percent");

    private MetricNames() {
    }

    /** @throws IllegalArgumentException saying which rule {@code name} breaks for a metric of that kind and unit */
    static void check(String name, MetricDescriptor.Kind kind, MetricUnit unit) {
        if (name == null || !name.startsWith(PREFIX) || !name.matches("[a-z0-9_]+")) {
            throw new IllegalArgumentException("a metric name is " + PREFIX + "lower_case: " + name);
        }
        boolean total = name.endsWith(COUNTER_SUFFIX);
        if (total != (kind == MetricDescriptor.Kind.COUNTER)) {
            throw new IllegalArgumentException(name + ": counters, and only counters, end in " + COUNTER_SUFFIX);
        }
        String stem = total ? name.substring(0, name.length() - COUNTER_SUFFIX.length()) : name;
        String suffix = unit.base().suffix();
        if (!suffix.isEmpty() && !stem.endsWith(suffix)) {
            throw new IllegalArgumentException(name + ": a metric in " + unit.base() + " ends in " + suffix);
        }
        if (suffix.isEmpty() && UNIT_WORDS.stream().anyMatch(stem::endsWith)) {
            throw new IllegalArgumentException(name + ": a count's name ends in no unit");
        }
        if (name.contains("_sectors")) {
            throw new IllegalArgumentException(name + ": /metrics speaks bytes, never sectors");
        }
    }
}

package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the Prometheus alert rules shipped in {@code packaging/}: they parse, have the parts
 * Grafana and Prometheus need, and name only series that {@code /metrics} exports.
 */
class ShippedMonitoringTest {
    private static final Path DASHBOARD = Path.of("packaging/grafana/blockcache.json");
    private static final Path ALERTS = Path.of("packaging/prometheus/alerts.yml");
    /** promtool checks a file in milliseconds; a minute means it hangs. */
    private static final long PROMTOOL_WAIT_SECONDS = 60;
    /** A metric name in PromQL: blockcache's, the client's process and JVM families, or Prometheus's own up. */
    private static final Pattern METRIC = Pattern.compile(
            "(?<![A-Za-z0-9_$])((?:blockcache|process|jvm)_[a-z0-9_]+|up(?=\\{))");

    @Test
    void everyExpressionOfTheDashboardAndTheAlertsNamesAnExportedSeries() throws Exception {
        // Proves a panel or an alert cannot name a metric that does not exist (a typo, a renamed or deprecated
        // family): each name is a series of /metrics rendered from a snapshot with every part present.
        Set<String> used = usedNames();
        Set<String> exported = seriesNames(PrometheusText.render(StatsSamples.full(1000)));
        Set<String> deprecated = new HashSet<>();
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            if (metric.deprecatedAs() != null) {
                deprecated.add(metric.deprecatedAs().name());
            }
        }
        deprecated.add(VolumeMetrics.LATENCY.name());
        assertThat(used).as("names in the shipped expressions").isNotEmpty().allSatisfy(name -> {
            assertThat(exported).as("exported").contains(name);
            assertThat(deprecated).as("deprecated").doesNotContain(name);
        });
        assertThat(used).contains("blockcache_request_duration_seconds_bucket", "blockcache_volume_health",
                "blockcache_volume_health_reason", "blockcache_dirty_bytes", "blockcache_writeback_written_bytes_total",
                "blockcache_backing_requests_in_flight", "blockcache_read_hit_bytes_total",
                "blockcache_writeback_errors_total", "blockcache_build_info", "process_start_time_seconds", "up");
    }

    @Test
    void aLiveServerUnderRequestsExportsEveryNameTheShippedFilesUse() throws Exception {
        // Proves the same against a running cache set's /metrics after requests of every kind, where every counter
        // family ends in _total and every operation has its histogram.
        try (RunningCacheSet cache = new RunningCacheSet()) {
            for (int i = 0; i < 8; i++) {
                cache.write(i * 65536L, 4096);
                cache.read(i * 65536L, 4096);
            }
            cache.io(done -> cache.set.volume("default").flush(done));
            cache.io(done -> cache.set.volume("default").discard(0, 4096, done));
            String text = cache.get("/metrics");
            Set<String> exported = seriesNames(text);
            assertThat(usedNames()).allSatisfy(name -> assertThat(exported).as("live").contains(name));
            Matcher counter = Pattern.compile("(?m)^# TYPE (\\S+) counter$").matcher(text);
            int counters = 0;
            while (counter.find()) {
                assertThat(counter.group(1)).endsWith("_total");
                counters++;
            }
            assertThat(counters).isGreaterThan(50);
            for (String op : List.of("read", "write", "flush", "trim")) {
                assertThat(text).containsPattern("blockcache_request_duration_seconds_count\\{op=\"" + op
                        + "\",volume=\"default\"} [1-9]");
            }
        }
    }

    @Test
    void promtoolAcceptsTheRulesPassesTheirTestsAndParsesEveryDashboardQuery(@TempDir Path dir) throws Exception {
        // Proves the PromQL itself, where Debian's prometheus package provides promtool: the rule file checks, its
        // unit tests (packaging/prometheus/alerts_test.yml: each alert fires, with its labels and text, and not
        // before its time) pass, and each dashboard query, its Grafana variables filled in, parses.
        if (promtool() == null && System.getenv("CI") != null) {
            throw new AssertionError("promtool is not installed (Debian: apt-get install prometheus); CI is set, so"
                    + " this is a failure, not a skip");
        }
        Assumptions.assumeTrue(promtool() != null, "promtool is not installed (Debian: apt-get install prometheus)");
        promtool("check", "rules", ALERTS.toString());
        promtool("test", "rules", ALERTS.resolveSibling("alerts_test.yml").toString());
        List<Map<String, String>> records = new ArrayList<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        for (String expression : dashboard.findValuesAsText("expr")) {
            String filled = expression.replace("$__rate_interval", "5m").replace("$instance", ".*")
                    .replace("$volume", ".*");
            records.add(Map.of("record", "dashboard:query_" + records.size(), "expr", filled));
        }
        Path queries = dir.resolve("dashboard-queries.yml");
        new ObjectMapper(new YAMLFactory()).writeValue(queries.toFile(),
                Map.of("groups", List.of(Map.of("name", "dashboard", "rules", records))));
        promtool("check", "rules", queries.toString());
    }

    /** The promtool command on the PATH, or null. */
    private static Path promtool() {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(directory, "promtool");
            if (!directory.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Runs promtool with {@code arguments}; fails the test with its output unless it exits 0 within a minute. */
    private static void promtool(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(promtool().toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(PROMTOOL_WAIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("promtool " + String.join(" ", arguments) + " took over a minute");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("promtool " + String.join(" ", arguments) + ":\n" + output).isZero();
    }

    /** Every metric name the dashboard's and the alerts' expressions name ({@code up} included). */
    private static Set<String> usedNames() throws Exception {
        List<String> expressions = new ArrayList<>(dashboardExpressions());
        expressions.addAll(alertExpressions());
        Set<String> used = new TreeSet<>();
        for (String expression : expressions) {
            Matcher name = METRIC.matcher(expression);
            while (name.find()) {
                used.add(name.group(1));
            }
        }
        return used;
    }

    @Test
    void theDashboardIsAGrafanaDashboardWithAQueryInEveryPanel() throws Exception {
        // Proves the JSON parses and has what Grafana's import needs: a uid, a data source variable, panels with
        // unique ids inside the 24-column grid, each (but rows) with at least one query.
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertThat(dashboard.path("uid").asText()).isEqualTo("blockcache");
        assertThat(dashboard.path("templating").path("list").findValuesAsText("type")).contains("datasource");
        Set<Integer> ids = new HashSet<>();
        int queries = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(ids.add(panel.path("id").asInt())).as("unique id " + panel.path("id")).isTrue();
            JsonNode grid = panel.path("gridPos");
            assertThat(grid.path("x").asInt() + grid.path("w").asInt()).as(panel.path("title").asText())
                    .isBetween(1, 24);
            if (!panel.path("type").asText().equals("row")) {
                assertThat(panel.path("targets").size()).as(panel.path("title").asText()).isPositive();
                queries += panel.path("targets").size();
            }
        }
        assertThat(queries).isGreaterThan(30);
    }

    @Test
    void theAlertRulesAreARuleFileWithASeverityAndASummaryEach() throws Exception {
        // Proves the YAML parses as Prometheus's rule file shape: groups of rules, each with a unique alert name, an
        // expression, a severity label and a summary.
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(ALERTS.toFile());
        Set<String> names = new HashSet<>();
        for (JsonNode group : rules.path("groups")) {
            assertThat(group.path("name").asText()).isNotBlank();
            for (JsonNode rule : group.path("rules")) {
                String alert = rule.path("alert").asText();
                assertThat(names.add(alert)).as("unique alert " + alert).isTrue();
                assertThat(rule.path("expr").asText()).as(alert).isNotBlank();
                assertThat(rule.path("labels").path("severity").asText()).as(alert).isIn("critical", "warning", "info");
                assertThat(rule.path("annotations").path("summary").asText()).as(alert).isNotBlank();
                if (rule.has("for")) {
                    assertThat(rule.path("for").asText()).as(alert).matches("[0-9]+[smh]");
                }
            }
        }
        assertThat(names).contains("BlockcacheDown", "BlockcacheVolumeFailed", "BlockcacheVolumeDegraded",
                "BlockcacheDirtyDataNearLimit", "BlockcacheWritebackStalled", "BlockcacheDeviceErrors");
    }

    /** The names of every sample line (histograms' _bucket, _sum, _count; counters' _total), and {@code up}. */
    private static Set<String> seriesNames(String exposition) {
        Set<String> names = new HashSet<>(Set.of("up")); // Prometheus's own, for each target it scrapes
        for (String line : exposition.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static List<String> dashboardExpressions() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> expressions = new ArrayList<>(dashboard.findValuesAsText("expr"));
        expressions.addAll(dashboard.path("templating").findValuesAsText("definition"));
        return expressions;
    }

    private static List<String> alertExpressions() throws Exception {
        return new ObjectMapper(new YAMLFactory()).readTree(ALERTS.toFile()).findValuesAsText("expr");
    }
}

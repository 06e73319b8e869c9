package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcBenchTest {
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\"[^\"]*\"|[-0-9.]+)");

    @Test
    void tinyRunPrintsOneJsonObjectPerModeAndNeverEvictsDirtyData(@TempDir Path images) throws Exception {
        // Proves the output shape of `bench gc --json` (experiments, modes, fields, numbers) on a tiny run, that
        // the full cache written 3x over the HDD model completes with no dirty eviction, and that charts are drawn.
        GcBench.Plan tiny = new GcBench.Plan(20_000, 100, 200, 1, 8L << 20, 128 << 10, images);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> lines = GcBench.run(tiny, true, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).isEqualTo(lines);
        assertThat(lines).hasSize(4);
        String[][] expected = {{"gc-latency", "no-gc"}, {"gc-latency", "unsliced"}, {"gc-latency", "sliced"},
            {"full-cache", "sliced"}};
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            assertThat(line).startsWith("{").endsWith("}");
            assertThat(field(line, "experiment")).isEqualTo("\"" + expected[i][0] + "\"");
            assertThat(field(line, "mode")).isEqualTo("\"" + expected[i][1] + "\"");
            for (String latency : new String[] {"p50Us", "p99Us", "p999Us", "maxUs"}) {
                assertThat(Double.parseDouble(field(line, latency))).as(line + " " + latency).isPositive();
            }
            assertThat(Double.parseDouble(field(line, "p50Us"))).isLessThanOrEqualTo(
                    Double.parseDouble(field(line, "maxUs")));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(Long.parseLong(field(lines.get(i), "extents"))).as("row %s; the run's log:%n%s", i,
                    log.toString(StandardCharsets.UTF_8)).isBetween(19_000L, 21_000L);
            assertThat(field(lines.get(i), "jvmPauseMaxMs")).isNotNull();
        }
        assertThat(field(lines.get(0), "gcDurationMs")).isNull();
        assertThat(Double.parseDouble(field(lines.get(1), "gcDurationMs"))).isPositive();
        assertThat(Double.parseDouble(field(lines.get(2), "gcDurationMs"))).isPositive();
        String full = lines.get(3);
        assertThat(field(full, "dirtyEvictions")).isEqualTo("0");
        assertThat(Double.parseDouble(field(full, "throughputMiBPerSecond"))).isPositive();
        assertThat(Double.parseDouble(field(full, "sortedWriteMiBPerSecond"))).isPositive();
        assertThat(field(full, "extents")).isNull();
        assertThat(Files.size(images.resolve("gc-latency-timeline.png"))).isPositive();
        assertThat(Files.size(images.resolve("gc-full-cache-throughput.png"))).isPositive();
    }

    /** The raw JSON value of {@code name} in {@code line}, or null if absent. */
    private static String field(String line, String name) {
        Matcher matcher = FIELD.matcher(line);
        while (matcher.find()) {
            if (matcher.group(1).equals(name)) {
                return matcher.group(2);
            }
        }
        return null;
    }
}

package io.blockcache.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench hitratio}'s table, its goal lines and its charts.
 *
 * <p>Thread rule: pure, except the chart files it writes.
 */
final class HitRatioReport {
    private HitRatioReport() {
    }

    /** Two tables (miss ratio by requests, then by bytes), one line per trace and size, then the goal checks. */
    static void print(List<HitRatioRow> rows, PrintStream out) {
        List<String> policies = policies(rows);
        for (boolean bytes : new boolean[] {false, true}) {
            out.println(bytes ? "Read miss ratio by bytes" : "Read miss ratio by requests");
            StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-24s %5s %8s", "trace", "size",
                    "MiB"));
            policies.forEach(p -> header.append(String.format(Locale.ROOT, " %10s", shortName(p))));
            header.append(String.format(Locale.ROOT, " %7s %7s", "WA", "cw/cb"));
            out.println(header);
            for (Map.Entry<String, List<HitRatioRow>> group : groups(rows).entrySet()) {
                HitRatioRow first = group.getValue().get(0);
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-24s %4d%% %8.1f", first.trace(),
                        first.sizePercent(), first.capacityBlocks() * BlockTrace.BLOCK_BYTES / 1048576.0));
                HitRatioRow engine = null;
                for (String policy : policies) {
                    HitRatioRow row = find(group.getValue(), policy);
                    line.append(String.format(Locale.ROOT, " %10.4f",
                            row == null ? Double.NaN : bytes ? row.byteMissRatio() : row.requestMissRatio()));
                    if (policy.equals(HitRatioBench.ENGINE)) {
                        engine = row;
                    }
                }
                if (engine != null) {
                    line.append(String.format(Locale.ROOT, " %7.2f %7.2f", engine.writeAmplification(),
                            engine.cacheWritesPerClientByte()));
                }
                out.println(line);
            }
            out.println();
        }
        goals(rows, out);
    }

    /** The goal lines: blockcache against S3-FIFO, W-TinyLFU and LRU. */
    static void goals(List<HitRatioRow> rows, PrintStream out) {
        double reductionSum = 0;
        int compared = 0;
        int worseThanLru = 0;
        int worseThanS3OrTiny = 0;
        int checkedS3OrTiny = 0;
        for (List<HitRatioRow> group : groups(rows).values()) {
            HitRatioRow engine = find(group, HitRatioBench.ENGINE);
            HitRatioRow lru = find(group, "LRU");
            if (engine == null || lru == null) {
                continue;
            }
            if (lru.requestMissRatio() > 0) {
                reductionSum += 1 - engine.requestMissRatio() / lru.requestMissRatio();
                compared++;
            }
            if (engine.requestMissRatio() > lru.requestMissRatio() + 1e-9) {
                worseThanLru++;
            }
            int size = engine.sizePercent();
            if (size == 5 || size == 10) {
                for (String rival : new String[] {"S3-FIFO", "W-TinyLFU"}) {
                    HitRatioRow other = find(group, rival);
                    checkedS3OrTiny++;
                    if (other != null && engine.requestMissRatio() > other.requestMissRatio() + 1e-9) {
                        worseThanS3OrTiny++;
                    }
                }
            }
        }
        out.printf(Locale.ROOT, "goal: misses vs LRU, average reduction %.1f %% over %d trace-sizes (goal >= 15 %%)%n",
                compared == 0 ? 0 : 100 * reductionSum / compared, compared);
        out.printf(Locale.ROOT, "goal: trace-sizes with more misses than LRU: %d (goal 0)%n", worseThanLru);
        out.printf(Locale.ROOT, "goal: comparisons at 5 %% and 10 %% lost to S3-FIFO or W-TinyLFU: %d of %d (goal 0)%n",
                worseThanS3OrTiny, checkedS3OrTiny);
    }

    /** One PNG per trace: request miss ratio against cache size, one line per policy. */
    static void chart(String trace, List<HitRatioRow> rows, Path dir) throws IOException {
        Files.createDirectories(dir);
        LineChart chart = new LineChart("Read miss ratio, " + trace, "cache size (% of the working set)",
                "miss ratio (requests)");
        for (String policy : policies(rows)) {
            Series series = new Series(policy);
            rows.stream().filter(r -> r.policy().equals(policy))
                    .forEach(r -> series.add(r.sizePercent(), r.requestMissRatio()));
            chart.add(series);
        }
        chart.writePng(dir.resolve("hitratio-" + trace.replaceAll("[^A-Za-z0-9.-]", "_") + ".png"));
    }

    private static List<String> policies(List<HitRatioRow> rows) {
        List<String> names = new ArrayList<>();
        rows.forEach(r -> {
            if (!names.contains(r.policy())) {
                names.add(r.policy());
            }
        });
        return names;
    }

    private static Map<String, List<HitRatioRow>> groups(List<HitRatioRow> rows) {
        Map<String, List<HitRatioRow>> groups = new LinkedHashMap<>();
        rows.forEach(r -> groups.computeIfAbsent(r.trace() + "@" + r.sizePercent(), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private static HitRatioRow find(List<HitRatioRow> group, String policy) {
        return group.stream().filter(r -> r.policy().equals(policy)).findFirst().orElse(null);
    }

    private static String shortName(String policy) {
        return policy.equals(HitRatioBench.ENGINE_NO_ADMISSION) ? "bc-noadm" : policy;
    }
}

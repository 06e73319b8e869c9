package io.blockcache.bench;

import io.blockcache.json.JsonWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One sustained-write cell of {@code bench nbd --sustained} or {@code bench backing --sustained}
 * (docs/WRITEBACK.md "Sustained writes"): fio's 4 KiB random writes at a queue depth for a duration, no ramp, IOPS
 * logged per {@link #WINDOW_MS} window; for a blockcache server the admin API is sampled every window meanwhile
 * (dirty data and buckets in use as the throttle and the cutoffs see them, writes held, writes sent around).
 *
 * <p>Thread rule: the caller's thread; sleeps between samples (benchmark harness, not engine code).
 */
public final class SustainedFioRun {
    /** The window: IOPS per 2 s. */
    static final int WINDOW_MS = 2000;

    /**
     * What one cell measured.
     *
     * @param windowIops fio's IOPS per window, in order
     * @param dirtyPercent dirty data share over time (x seconds from the start, y percent); empty without an admin API
     * @param throttledWrites writes the throttle held during the run (-1 without an admin API)
     * @param bypassedSectors write sectors sent around the cache during the run (-1 without an admin API)
     */
    public record Result(String server, String row, double iops, double p99Us, long writes, double[] windowIops,
                  Series dirtyPercent, Series inUsePercent, long throttledWrites, long bypassedSectors) {
        double medianWindowIops() {
            if (windowIops.length == 0) {
                return Double.NaN;
            }
            double[] sorted = windowIops.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length / 2];
        }

        double minWindowIops() {
            return Arrays.stream(windowIops).min().orElse(Double.NaN);
        }

        /** Percent of the written sectors that went around the cache (NaN without an admin API). */
        double bypassedPercent() {
            return bypassedSectors < 0 || writes == 0 ? Double.NaN : 100.0 * bypassedSectors / (writes * 8.0);
        }

        String toJsonLine() {
            JsonWriter json = new JsonWriter().beginObject().field("server", server).field("row", row)
                    .field("iops", iops).field("p99Us", p99Us).field("writes", writes)
                    .field("medianWindowIops", medianWindowIops()).field("minWindowIops", minWindowIops())
                    .field("throttledWrites", throttledWrites).field("bypassedPercent", bypassedPercent());
            json.name("windowIops").beginArray();
            for (double v : windowIops) {
                json.value(v);
            }
            json.endArray().name("dirtyPercent").beginArray();
            for (double[] point : dirtyPercent.points()) {
                json.value(point[1]);
            }
            return json.endArray().endObject().toString();
        }
    }

    private SustainedFioRun() {
    }

    /** A Markdown table of {@code results}. */
    public static String table(List<Result> results) {
        StringBuilder out = new StringBuilder("| server | row | IOPS | p99 µs | median 2-s IOPS | lowest 2-s IOPS "
                + "| lowest ÷ median | writes held | around the cache % |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Result r : results) {
            out.append(String.format(java.util.Locale.ROOT,
                    "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.2f | %d | %.2f |%n",
                    r.server(), r.row(), r.iops(), r.p99Us(), r.medianWindowIops(), r.minWindowIops(),
                    r.minWindowIops() / r.medianWindowIops(), r.throttledWrites(), r.bypassedPercent()));
        }
        return out.toString();
    }

    /** One JSON object per line. */
    public static List<String> jsonLines(List<Result> results) {
        return results.stream().map(Result::toJsonLine).toList();
    }

    /** The dirty data share (and buckets in use) over time of every result that has it, as a PNG at {@code file}. */
    public static void chart(List<Result> results, String title, Path file) throws IOException {
        LineChart chart = new LineChart(title, "time (s)", "% of the cache");
        for (Result r : results) {
            if (!r.dirtyPercent().points().isEmpty()) {
                chart.add(r.dirtyPercent());
                chart.add(r.inUsePercent());
            }
        }
        chart.writePng(file);
    }

    static Result run(FioRunner fio, Path workDir, NbdServerProcess server, String row, long offsetBytes,
                      long lengthBytes, int iodepth, int durationSeconds) throws IOException, InterruptedException {
        ServeAdmin admin = server.admin();
        ServeAdmin.Sample first = admin == null ? null : admin.sample();
        Series dirty = new Series(server.name());
        Series inUse = new Series(server.name() + ", buckets in use");
        Path prefix = workDir.resolve(server.name() + "-" + row);
        long startNs = System.nanoTime();
        IOException[] sampleError = {null};
        FioJson.Section section = fio.runLogged(server.uri(), row, "randwrite", 4096, iodepth, offsetBytes,
                lengthBytes, durationSeconds, prefix, WINDOW_MS,
                running -> sample(admin, running, startNs, dirty, inUse, sampleError));
        if (sampleError[0] != null) {
            throw sampleError[0];
        }
        ServeAdmin.Sample last = admin == null ? null : admin.sample();
        double[] windows = windows(Path.of(prefix + "_iops.1.log"));
        return new Result(server.name(), row, section.iops(), section.p99Us(), section.requests(), windows, dirty,
                inUse,
                admin == null ? -1 : last.throttledWrites() - first.throttledWrites(),
                admin == null ? -1 : last.bypassedSectors() - first.bypassedSectors());
    }

    private static void sample(ServeAdmin admin, BooleanSupplier running, long startNs, Series dirty, Series inUse,
                               IOException[] error) {
        try {
            while (running.getAsBoolean()) {
                Thread.sleep(WINDOW_MS); // benchmark harness, not engine code
                if (admin != null && running.getAsBoolean()) {
                    ServeAdmin.Sample s = admin.sample();
                    double seconds = (System.nanoTime() - startNs) / 1e9;
                    dirty.add(seconds, s.dirtyDataPercent());
                    inUse.add(seconds, s.inUsePercent());
                }
            }
        } catch (IOException e) {
            error[0] = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** fio's IOPS log: one line per window, {@code time_ms, iops, direction, block size[, offset]}. */
    static double[] windows(Path log) throws IOException {
        List<Double> values = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            String[] fields = line.split(",");
            if (fields.length >= 2) {
                values.add(Double.parseDouble(fields[1].trim()));
            }
        }
        Files.deleteIfExists(log);
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Prints {@code results} to {@code out} (a table, or JSON lines with {@code json}) and draws their chart into
     * {@code png}, saying where on {@code err} as {@code who}: the same for every bench command's sustained rows.
     */
    public static void report(List<Result> results, boolean json, java.io.PrintWriter out, java.io.PrintWriter err,
                              String who, String title, Path png) throws IOException {
        if (json) {
            jsonLines(results).forEach(out::println);
        } else {
            out.print(table(results));
        }
        out.flush();
        chart(results, title, png);
        err.println(who + ": chart written to " + png);
        err.flush();
    }
}

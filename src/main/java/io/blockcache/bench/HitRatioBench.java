package io.blockcache.bench;

import io.blockcache.bench.policy.BeladyPolicy;
import io.blockcache.bench.policy.LogPolicy;
import io.blockcache.bench.policy.Policies;
import io.blockcache.json.JsonWriter;
import io.blockcache.volume.AdmissionSettings;
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
 * {@code bench hitratio}: each trace replayed through the engine in simulated time ({@link EngineReplay}, read
 * admission on and off) and, at the engine's usable capacity, through the classic policies and Belady's optimum
 * ({@link PolicyReplay}), and through the log-structured yardsticks of {@code Policies.logs} (bucket-granular
 * eviction with no margin, to tell what the bucket granularity costs from what the engine's policy costs); miss
 * ratios by requests and bytes at 1, 5, 10 and 25 % of each trace's working set (or one size in bytes), the
 * engine's write amplification, a table (or JSON lines) and one PNG chart per trace.
 *
 * <p>Thread rule: the caller's thread.
 */
public final class HitRatioBench {
    /** The sizes measured, % of the trace's working set. */
    static final int[] SIZE_PERCENTS = {1, 5, 10, 25};
    static final String ENGINE = "blockcache";
    static final String ENGINE_NO_ADMISSION = "blockcache-noadm";

    /**
     * What to run.
     *
     * @param traces the traces
     * @param cacheBytes one usable cache size in bytes instead of the four shares of the working set, or 0
     * @param images where the charts go, or null for none
     * @param seed the engine's format seed
     * @param only run only the trace of this name, or null for all
     */
    public record Plan(List<Named> traces, long cacheBytes, Path images, long seed, String only) {
    }

    /** A trace to load: a file in a format, or (file null) the synthetic set; at most {@code requestsMax}. */
    public record Named(Path file, String format, int requestsMax) {
    }

    private HitRatioBench() {
    }

    /** The bundled traces under {@code dir} that exist, and the synthetic ones. */
    public static List<Named> defaults(Path dir, int requestsMax) {
        List<Named> traces = new ArrayList<>();
        traces.add(new Named(null, "synthetic", requestsMax));
        Map<String, String> bundled = new LinkedHashMap<>();
        bundled.put("cloudphysics-io.csv.gz", "cloudphysics");
        bundled.put("msr-cambridge1-sample.csv", "msr");
        bundled.put("systor17-sample.csv.gz", "systor");
        bundled.forEach((file, format) -> {
            if (Files.isRegularFile(dir.resolve(file))) {
                traces.add(new Named(dir.resolve(file), format, requestsMax));
            }
        });
        return traces;
    }

    /** Runs the plan; prints rows to {@code out} (a table, or JSON lines), progress to {@code err}. */
    public static List<HitRatioRow> run(Plan plan, boolean json, PrintStream out, PrintStream err)
            throws IOException {
        List<BlockTrace> traces = new ArrayList<>();
        for (Named named : plan.traces()) {
            if (named.file() == null) {
                SyntheticTraces.defaults(plan.seed()).forEach(t -> traces.add(t.head(named.requestsMax())));
            } else {
                String name = named.file().getFileName().toString().replaceFirst("\\.csv(\\.gz)?$", "");
                traces.add(TraceReaders.read(named.file(), named.format(), name, named.requestsMax()));
            }
        }
        List<HitRatioRow> rows = new ArrayList<>();
        for (BlockTrace trace : traces) {
            if (plan.only() != null && !plan.only().equals(trace.name())) {
                continue;
            }
            List<HitRatioRow> traceRows = measure(trace, plan, err);
            rows.addAll(traceRows);
            if (json) {
                for (HitRatioRow row : traceRows) {
                    JsonWriter writer = new JsonWriter();
                    row.writeJson(writer);
                    out.println(writer);
                }
            }
            if (plan.images() != null && plan.cacheBytes() == 0) {
                HitRatioReport.chart(trace.name(), traceRows, plan.images());
            }
        }
        if (!json) {
            HitRatioReport.print(rows, out);
        }
        return rows;
    }

    /** Every policy on {@code trace} at each size. */
    static List<HitRatioRow> measure(BlockTrace trace, Plan plan, PrintStream err) {
        long workingSet = trace.workingSetBlocks();
        long[] stream = trace.blockStream();
        long clientBytes = 0;
        for (int r = 0; r < trace.requests(); r++) {
            clientBytes += (long) trace.blockCount(r) * BlockTrace.BLOCK_BYTES;
        }
        int[] sizes = plan.cacheBytes() > 0 ? new int[] {0} : SIZE_PERCENTS;
        List<HitRatioRow> rows = new ArrayList<>();
        for (int percent : sizes) {
            long targetBytes = plan.cacheBytes() > 0 ? plan.cacheBytes()
                    : Math.max(1, workingSet * percent / 100) * BlockTrace.BLOCK_BYTES;
            long startNs = System.nanoTime();
            EngineReplay.Result on = EngineReplay.run(trace, targetBytes, plan.seed(),
                    set -> set.volumes().forEach(v -> v.setAdmissionSettings(AdmissionSettings.defaults())));
            EngineReplay.Result off = EngineReplay.run(trace, targetBytes, plan.seed(),
                    set -> set.volumes().forEach(v -> v.setAdmissionSettings(AdmissionSettings.off())));
            int capacity = (int) on.usableBlocks();
            rows.add(engineRow(trace, percent, capacity, ENGINE, on, clientBytes));
            rows.add(engineRow(trace, percent, capacity, ENGINE_NO_ADMISSION, off, clientBytes));
            for (Policies.Named policy : Policies.classic()) {
                rows.add(policyRow(trace, percent, capacity, policy.name(),
                        PolicyReplay.run(trace, policy.factory().apply(capacity))));
            }
            for (LogPolicy log : Policies.logs(capacity)) {
                rows.add(policyRow(trace, percent, capacity, log.name(), PolicyReplay.run(trace, log)));
                err.printf(Locale.ROOT, "hitratio: %s at %d %%: %s rewrote %,d blocks to keep them%n", trace.name(),
                        percent, log.name(), log.rewrittenBlocks());
            }
            rows.add(policyRow(trace, percent, capacity, "Belady",
                    PolicyReplay.run(trace, new BeladyPolicy(stream, capacity))));
            err.printf(Locale.ROOT, "hitratio: %s at %d %% (%d of %d blocks): blockcache %.4f (no admission %.4f), "
                    + "%,d buckets evicted, live data %.0f %% of usable, %,d blocks promoted, "
                    + "admission state %,d bytes, "
                    + "%.1f s simulated, %.1f s%n", trace.name(), percent, capacity, workingSet,
                    on.requestMissRatio(), off.requestMissRatio(), on.bucketsEvicted(), 100 * on.liveFraction(),
                    on.promotedBlocks(), on.admissionMemoryBytes(), on.simulatedSeconds(),
                    (System.nanoTime() - startNs) / 1e9);
        }
        return rows;
    }

    private static HitRatioRow engineRow(BlockTrace trace, int percent, int capacity, String name,
                                         EngineReplay.Result result, long clientBytes) {
        return new HitRatioRow(trace.name(), percent, capacity, name, result.requestMissRatio(),
                result.byteMissRatio(), result.writeAmplification(),
                result.cacheWriteBytes() / (double) Math.max(1, clientBytes));
    }

    private static HitRatioRow policyRow(BlockTrace trace, int percent, int capacity, String name,
                                         PolicyReplay.Result result) {
        return new HitRatioRow(trace.name(), percent, capacity, name, result.requestMissRatio(),
                result.byteMissRatio(), Double.NaN, Double.NaN);
    }
}

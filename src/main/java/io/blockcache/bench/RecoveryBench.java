package io.blockcache.bench;

import io.blockcache.device.FileDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.OpenWarmUp;
import io.blockcache.engine.Outcome;
import io.blockcache.engine.RecoveryProgress;
import io.blockcache.loop.RealLoop;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code bench recovery}: seconds from {@code CacheSet.open} to serving for a cache of N extents, after a
 * crash (checkpoint + journal tail; clean extents would be dropped, docs/FORMAT.md §7 rule 10) and after a clean
 * stop (everything in the shutdown checkpoint), with how the replay was sliced and the longest time the loop kept a
 * task waiting meanwhile ({@link LoopLagProbe}). The image is built by {@link RecoveryImage}.
 *
 * <p>Both opens run in this JVM, one after the other, on files the fill has just written: the page cache holds
 * them, so this is a warm restart's recovery, not a cold disk's. Thread rule: the caller's thread.
 */
public final class RecoveryBench {
    private static final long CALL_SECONDS_MAX = 600;

    /**
     * What to run.
     *
     * @param extents dirty 4 KiB extents in the cache
     * @param dir where the sparse cache and backing files go (deleted at the end)
     */
    public record Plan(long extents, Path dir) {
        /** The recovery goal's size: 10 million extents. */
        public static Plan full(Path dir) {
            return new Plan(10_000_000, dir);
        }

        /** A minute or so: 1 million extents. */
        public static Plan quick(Path dir) {
            return new Plan(1_000_000, dir);
        }
    }

    private RecoveryBench() {
    }

    /** Builds the image, opens it after the crash and after a clean stop, prints a table or JSON lines. */
    public static List<String> run(Plan plan, boolean json, PrintStream out, PrintStream log) throws Exception {
        log.println("bench recovery: " + String.format(Locale.ROOT, "%,d", plan.extents()) + " extents in "
                + plan.dir() + ", max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
        RecoveryImage image = new RecoveryImage(plan.dir());
        List<BenchRow> rows = new ArrayList<>();
        try {
            image.build(plan.extents(), log::println);
            // As serve does before opening a cache that may need recovery (host.CacheHost): the JVM's one-time
            // costs of an open that replays are paid off the loop.
            long warmUpStartNs = System.nanoTime();
            OpenWarmUp.run();
            log.println(String.format(Locale.ROOT, "bench recovery: open warm-up %.1f ms",
                    (System.nanoTime() - warmUpStartNs) / 1e6));
            rows.add(open(image, "crash", plan.extents(), log::println, true));
            rows.add(open(image, "clean", plan.extents(), log::println, false));
        } finally {
            image.delete();
        }
        List<String> lines = new ArrayList<>();
        if (json) {
            rows.forEach(row -> lines.add(row.toJson()));
        } else {
            lines.add(String.format(Locale.ROOT, "%-6s %11s %11s %8s %8s %8s %8s %8s %7s %6s %8s %6s %8s %9s %-16s"
                    + " %8s %7s", "case", "extents", "replayed", "serve s", "cpu s", "read s", "replay s", "wire s",
                    "slices", "units", "slice ms", ">10ms", "avg ms", "lag ms", "lag in", "heap MiB", "steal %"));
            for (BenchRow r : rows) {
                lines.add(String.format(Locale.ROOT, "%-6s %,11d %,11d %8.2f %8.2f %8.2f %8.2f %8.2f %,7d %6d %8.2f"
                        + " %6d %8.2f %9.1f %-16s %8.0f %7.1f", r.policy(), (long) r.number("extentsAfterOpen"),
                        (long) r.number("extentsReplayed"), r.number("secondsToServing"), r.number("loopCpuSeconds"),
                        r.number("readMetadataSeconds"), r.number("replaySeconds"), r.number("wiringSeconds"),
                        (long) r.number("slices"), (long) r.number("sliceUnitsPeak"), r.number("sliceMsMax"),
                        (long) r.number("slicesOver10Ms"), r.number("sliceMsAverage"), r.number("loopLagMsMax"),
                        r.get("loopLagPhase"), r.number("heapMiBAfterOpen"), r.number("stealPercent")));
            }
        }
        lines.forEach(out::println);
        return lines;
    }

    /** Opens the image, measures, and stops (cleanly if {@code thenShutDown}, so the next open finds a clean stop). */
    private static BenchRow open(RecoveryImage image, String name, long extents, Consumer<String> log,
                                 boolean thenShutDown) throws Exception {
        RealLoop loop = new RealLoop("blockcache-loop");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try {
            FileDevice cache = FileDevice.open(loop, image.cacheFile, RecoveryImage.deviceOptions());
            FileDevice backing = FileDevice.open(loop, image.backingFile, RecoveryImage.deviceOptions());
            List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
            RecoveryProgress progress = new RecoveryProgress();
            System.gc();
            LoopLagProbe probe = new LoopLagProbe(loop, progress);
            HostSteal.Sample stealBefore = HostSteal.sample();
            probe.start();
            long startNs = System.nanoTime();
            long loopCpuStartNs = threads.getThreadCpuTime(loop.thread().threadId());
            CacheSet set = LoopAwait.<Outcome<CacheSet>>call(loop, CALL_SECONDS_MAX,
                    done -> CacheSet.open(loop, cache, backings, image.options, progress, done)).orThrow();
            long servingNs = System.nanoTime() - startNs;
            long loopCpuNs = threads.getThreadCpuTime(loop.thread().threadId()) - loopCpuStartNs;
            long lagNsMax = probe.stop();
            double stealPercent = HostSteal.percent(stealBefore, HostSteal.sample());
            LoopAwait.run(loop, CALL_SECONDS_MAX, () -> set.knobs().find("writeback.default.running").set("false"));
            BenchRow row = LoopAwait.call(loop, CALL_SECONDS_MAX, done -> done.accept(new BenchRow("recovery", name)
                    .with("extents", extents)
                    .with("extentsAfterOpen", (long) set.volumes().get(0).index().extents().extentCount())
                    .with("extentsReplayed", progress.extentsReplayed())
                    .with("secondsToServing", servingNs / 1e9)
                    .with("readMetadataSeconds", seconds(progress.nsBetween(RecoveryProgress.Phase.READING_METADATA,
                            RecoveryProgress.Phase.CHECKPOINT)))
                    .with("replaySeconds", seconds(progress.nsBetween(RecoveryProgress.Phase.CHECKPOINT,
                            RecoveryProgress.Phase.WIRING)))
                    .with("wiringSeconds", seconds(progress.nsBetween(RecoveryProgress.Phase.WIRING,
                            RecoveryProgress.Phase.DONE)))
                    .with("slices", progress.slices())
                    .with("sliceUnitsPeak", (long) progress.sliceUnitsPeak())
                    .with("sliceMsMax", progress.sliceNsMax() / 1e6)
                    .with("slicesOver10Ms", progress.slicesOverBudget())
                    .with("sliceMsAverage", progress.nsBetween(RecoveryProgress.Phase.CHECKPOINT,
                            RecoveryProgress.Phase.WIRING) / 1e6 / Math.max(1, progress.slices()))));
            System.gc();
            long heapBytes = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            row.with("loopCpuSeconds", loopCpuNs / 1e9)
                    .with("loopLagMsMax", lagNsMax / 1e6)
                    .with("loopLagPhase", probe.lagPhase() == null ? null : probe.lagPhase().jsonName())
                    .with("heapMiBAfterOpen", heapBytes / (double) (1 << 20))
                    // a descheduled loop is a long wait no code can prevent: say how much the host took meanwhile
                    .with("stealPercent", Double.isNaN(stealPercent) ? null : stealPercent);
            log.accept("bench recovery: " + name + " open: " + row.toJson());
            if (thenShutDown) {
                long shutdownStartNs = System.nanoTime();
                LoopAwait.io(loop, CALL_SECONDS_MAX, "clean shutdown", set::shutdown);
                log.accept(String.format(Locale.ROOT, "bench recovery: clean shutdown (checkpoint of every extent) in"
                        + " %.1f s", (System.nanoTime() - shutdownStartNs) / 1e9));
            }
            LoopAwait.run(loop, CALL_SECONDS_MAX, () -> {
                cache.close();
                backing.close();
            });
            return row;
        } finally {
            loop.close();
        }
    }

    private static Double seconds(long ns) {
        return ns < 0 ? null : ns / 1e9;
    }
}

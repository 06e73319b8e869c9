package io.blockcache.cli;

import io.blockcache.fuzz.FuzzScenario;
import io.blockcache.fuzz.FuzzTotals;
import io.blockcache.fuzz.FuzzViolation;
import io.blockcache.fuzz.FuzzWatch;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache simulate fuzz [--seeds N | --minutes M] [--seed S] [--first F] [--jobs J] [--json]}: runs
 * fuzz seeds (docs/TESTING.md), shows progress on stderr, prints a summary line (or one JSON object), and for
 * each violation the seed, the setup, the trace and the command that replays it. Exit 1 on any violation.
 */
@Command(name = "fuzz", description = "Adversarial crash/fault simulation of a whole cache set (simulated time).",
        mixinStandardHelpOptions = true)
final class SimulateFuzzCommand implements Callable<Integer> {
    /** Violations printed in full; more are listed by seed only. */
    private static final int VIOLATIONS_SHOWN = 3;
    /** Between two progress lines in a log: 10 s. */
    private static final long LOG_PROGRESS_NS = 10_000_000_000L;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    private final boolean terminal = System.console() != null;
    private PrintWriter out;
    private PrintWriter err;
    private FuzzWatch watched;
    private long lastProgressNs;

    @Option(names = "--seeds", description = "Seeds to run (default: 1000, or unbounded with --minutes).")
    private Long seeds;

    @Option(names = "--minutes", description = "Run seeds until this many minutes have passed.")
    private Double minutes;

    @Option(names = "--seed", description = "Run this one seed (replay) and print its trace if it fails.")
    private Long seed;

    @Option(names = "--first", defaultValue = "1", description = "First seed (default: ${DEFAULT-VALUE}).")
    private long first;

    @Option(names = "--jobs", description = "Seeds run in parallel (default: the number of processors).")
    private Integer jobs;

    @Option(names = "--watch", description = "With --seed: trace the backing device's requests on VOLUME:SECTOR "
            + "(e.g. vol1:1472) to see a failing sector's history.")
    private String watch;

    @Option(names = "--json", description = "Print the summary as one JSON object.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        try {
            watched = watch == null ? null : FuzzWatch.parse(watch);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--watch: " + e.getMessage());
        }
        long firstSeed = seed != null ? seed : first;
        long count = seed != null ? 1 : seeds != null ? seeds : minutes != null ? Long.MAX_VALUE : 1000;
        long deadlineNs = minutes == null ? Long.MAX_VALUE : System.nanoTime() + (long) (minutes * 60e9);
        int threads = jobs != null ? jobs : Runtime.getRuntime().availableProcessors();
        FuzzTotals totals = run(firstSeed, count, deadlineNs, Math.max(1, threads));
        int shown = 0;
        for (FuzzViolation violation : totals.violations()) {
            if (shown++ < VIOLATIONS_SHOWN) {
                printViolation(violation);
            } else {
                err.println("also failing: seed " + violation.seed() + " (" + violation.replayCommand() + ")");
            }
        }
        out.println(json ? totals.json() : totals.summaryLine());
        return totals.violations().isEmpty() ? 0 : 1;
    }

    private FuzzTotals run(long firstSeed, long count, long deadlineNs, int threads) throws Exception {
        long startNs = System.nanoTime();
        FuzzTotals totals = FuzzSeeds.run(firstSeed, count, deadlineNs, threads,
                seed -> FuzzScenario.run(seed, watched), running -> progress(running, count, startNs));
        if (terminal) {
            err.println();
        }
        return totals;
    }

    /**
     * Progress on stderr: on a terminal one line rewritten every 10 seeds; otherwise (a log, CI) a line every
     * {@link #LOG_PROGRESS_NS}, so that logs stay short.
     */
    private void progress(FuzzTotals totals, long count, long startNs) {
        long nowNs = System.nanoTime();
        boolean show = terminal ? totals.seeds() % 10 == 0 : nowNs - lastProgressNs >= LOG_PROGRESS_NS;
        if (!show) {
            return;
        }
        lastProgressNs = nowNs;
        double seconds = (nowNs - startNs) / 1e9;
        err.printf("%sfuzz: %d%s seeds, %d violations, %.1f seeds/s, %.0f s%s", terminal ? "\r" : "",
                totals.seeds(), count == Long.MAX_VALUE ? "" : "/" + count, totals.violations().size(),
                totals.seeds() / seconds, seconds, terminal ? "" : "\n");
        err.flush();
    }

    private void printViolation(FuzzViolation violation) {
        err.println("VIOLATION " + violation.getMessage());
        err.println("  setup: " + violation.setup());
        if (violation.getCause() != null) {
            err.println("  cause: " + violation.getCause());
            StackTraceElement[] stack = violation.getCause().getStackTrace();
            for (int i = 0; i < Math.min(12, stack.length); i++) {
                err.println("    at " + stack[i]);
            }
        }
        err.println("  trace (last " + violation.trace().size() + " lines):");
        for (String line : violation.trace()) {
            err.println("    " + line);
        }
        err.println("  replay: " + violation.replayCommand());
    }
}

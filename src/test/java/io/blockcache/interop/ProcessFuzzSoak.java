package io.blockcache.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The process fuzz's soak (docs/TESTING.md "Process fuzz"; run by {@code scripts/process-fuzz-soak.sh}): seed after
 * seed of {@link ProcessFuzz}, each with its own temporary directory (deleted after a pass, kept after a failure
 * for its serve logs), until the given time is up; a violation is printed and counted and the next seed runs.
 * Prints a line after every seed and a summary at the end: seeds, rounds, operations, kills, violations. Exits 1 if
 * any seed failed.
 *
 * <p>Arguments: {@code [MINUTES [FIRST_SEED [ROUNDS_PER_SEED]]]}, defaults 60, the clock, 20.
 */
public final class ProcessFuzzSoak {
    private ProcessFuzzSoak() {
    }

    /** Runs the soak; see the class comment. */
    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 60;
        long firstSeed = args.length > 1 ? Long.parseLong(args[1]) : System.currentTimeMillis() % 1_000_000_000L;
        int roundsPerSeed = args.length > 2 ? Integer.parseInt(args[2]) : ProcessFuzzTest.ROUNDS_DEFAULT;
        long startNs = System.nanoTime();
        long endNs = startNs + (long) (minutes * 60e9);
        ProcessFuzzCounters counters = new ProcessFuzzCounters();
        long seeds = 0;
        long violations = 0;
        long durableSectors = 0;
        long backingSectors = 0;
        System.out.println("process fuzz soak: " + minutes + " min, seeds from " + firstSeed + ", " + roundsPerSeed
                + " rounds per seed");
        for (long seed = firstSeed; System.nanoTime() - endNs < 0; seed++) {
            Path dir = Files.createTempDirectory("process-fuzz-" + seed + "-");
            long killsBefore = counters.kills();
            ProcessFuzz fuzz = new ProcessFuzz(seed, dir, counters);
            boolean passed = false;
            try {
                backingSectors += fuzz.run(roundsPerSeed, () -> System.nanoTime() - endNs > 0);
                durableSectors += fuzz.durableWrittenSectorsChecked();
                passed = true;
            } catch (Exception | AssertionError failed) {
                violations++;
                System.out.println("VIOLATION seed " + seed + " (its files and serve logs kept in " + dir + "): "
                        + failed);
                failed.printStackTrace(System.out);
            } finally {
                if (passed) {
                    delete(dir);
                }
            }
            seeds++;
            System.out.println("seed " + seed + " done (" + (counters.kills() - killsBefore) + " kills); after "
                    + seeds + " seeds, " + (System.nanoTime() - startNs) / 1_000_000_000 + " s: " + violations
                    + " violations, " + counters.summary());
        }
        System.out.println("process fuzz soak result: " + (System.nanoTime() - startNs) / 60_000_000_000.0
                + " min, " + seeds + " seeds, " + counters.kills() + " rounds (kills), " + counters.operations()
                + " operations, " + counters.kills() + " kills, " + violations + " violations; " + counters.summary()
                + "; " + durableSectors + " durable written sectors checked after restarts, " + backingSectors
                + " backing sectors compared");
        System.exit(violations == 0 ? 0 : 1);
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}

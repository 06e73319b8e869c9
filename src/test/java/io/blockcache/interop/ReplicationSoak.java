package io.blockcache.interop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The replication fuzz's soak (docs/TESTING.md "Replication"; run by {@code scripts/replication-soak.sh}): seed after
 * seed of {@link ReplicationFuzz}, each in its own temporary directory (deleted after a pass, kept after a failure for
 * the members' logs), until the given time is up or the given number of leader kills was reached. Prints a line per
 * seed and a summary. Exits 1 if any seed failed.
 *
 * <p>Arguments: {@code [MINUTES [KILLS [FIRST_SEED [ROUNDS_PER_SEED]]]]}, defaults 30, 200, the clock, 20.
 */
public final class ReplicationSoak {
    private ReplicationSoak() {
    }

    /** Runs the soak; see the class comment. */
    public static void main(String[] args) throws Exception {
        double minutes = args.length > 0 ? Double.parseDouble(args[0]) : 30;
        long killsTarget = args.length > 1 ? Long.parseLong(args[1]) : 200;
        long firstSeed = args.length > 2 ? Long.parseLong(args[2]) : System.currentTimeMillis() % 1_000_000_000L;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        long startNs = System.nanoTime();
        long endNs = startNs + (long) (minutes * 60e9);
        long seeds = 0;
        long kills = 0;
        long machinesLost = 0;
        long operations = 0;
        long violations = 0;
        long durableSectors = 0;
        System.out.println("replication soak: " + minutes + " min or " + killsTarget + " kills, seeds from "
                + firstSeed + ", " + rounds + " rounds per seed");
        for (long seed = firstSeed; System.nanoTime() - endNs < 0 && kills < killsTarget; seed++) {
            Path dir = Files.createTempDirectory("replication-soak-" + seed + "-");
            ReplicationFuzz fuzz = new ReplicationFuzz(seed, dir);
            boolean passed = false;
            try {
                fuzz.run(rounds);
                passed = true;
            } catch (Exception | AssertionError failed) {
                violations++;
                System.out.println("VIOLATION seed " + seed + " (member logs kept in " + dir + "): " + failed);
            } finally {
                if (passed) {
                    try (Stream<Path> paths = Files.walk(dir)) {
                        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                            Files.delete(p);
                        }
                    }
                }
            }
            seeds++;
            kills += fuzz.counters().kills();
            machinesLost += fuzz.machinesLost();
            operations += fuzz.counters().operations();
            durableSectors += fuzz.durableWrittenSectorsChecked();
            System.out.println("seed " + seed + (passed ? " passed: " : " FAILED: ") + fuzz.failoverSummary()
                    + "; after " + seeds + " seeds, " + (System.nanoTime() - startNs) / 1_000_000_000 + " s: "
                    + kills + " kills, " + violations + " violations");
        }
        System.out.println("replication soak result: " + String.format("%.1f", (System.nanoTime() - startNs) / 60e9)
                + " min, " + seeds + " seeds, " + kills + " leader kills (" + machinesLost + " with the data directory"
                + " deleted), " + operations + " operations, " + durableSectors + " durable written sectors checked"
                + " after failovers, " + violations + " violations");
        System.exit(violations == 0 ? 0 : 1);
    }
}

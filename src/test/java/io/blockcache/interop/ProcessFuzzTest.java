package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process fuzz in every test run (docs/TESTING.md "Process fuzz"): {@link ProcessFuzz} for one seed, 20 kill
 * rounds by default. {@code -Dblockcache.processFuzzSeed=S} replays a seed (the run prints its seed first),
 * {@code -Dblockcache.processFuzzRounds=N} runs N rounds; {@code scripts/process-fuzz-soak.sh} runs seed after seed
 * for an hour.
 */
class ProcessFuzzTest {
    static final String SEED_PROPERTY = "blockcache.processFuzzSeed";
    static final String ROUNDS_PROPERTY = "blockcache.processFuzzRounds";
    /** The CI run: 20 kills, about a minute on two shared cores. */
    static final int ROUNDS_DEFAULT = 20;

    @TempDir
    Path dir;

    @Test
    void acknowledgedDataSurvivesKillMinusNineAndTheBackingFileMatchesAfterTheFinalDrain() throws Exception {
        // Proves, for real serve processes killed with SIGKILL at random moments of a random NBD workload with live
        // mode switches and drains: every read returns a value the reference model allows (never bytes not written
        // to that sector), data acknowledged by FLUSH or FUA reads back after every restart, and after a final drain
        // and a clean stop the backing file holds what NBD read.
        long seed = Long.getLong(SEED_PROPERTY, System.nanoTime() & 0xFFFF_FFFFL);
        int rounds = Integer.getInteger(ROUNDS_PROPERTY, ROUNDS_DEFAULT);
        System.out.println("process fuzz: seed " + seed + ", " + rounds + " rounds (replay with -D"
                + SEED_PROPERTY + "=" + seed + ")");
        long startNs = System.nanoTime();
        ProcessFuzz fuzz = new ProcessFuzz(seed, dir, new ProcessFuzzCounters());
        long backingSectorsCompared = fuzz.run(rounds);
        ProcessFuzzCounters counters = fuzz.counters();
        System.out.println("process fuzz: seed " + seed + " passed in " + (System.nanoTime() - startNs) / 1_000_000
                + " ms: " + counters.summary() + "; " + fuzz.durableWrittenSectorsChecked()
                + " durable written sectors checked after restarts, " + backingSectorsCompared
                + " backing sectors compared");

        // Not vacuous: every round was a kill, most of them while a reply was awaited; the crash oracle met written
        // data, flushes happened, and most of the backing file was compared.
        assertThat(counters.kills()).isEqualTo(rounds);
        assertThat(counters.killsWithRequestsInFlight()).isGreaterThanOrEqualTo(rounds / 2);
        assertThat(counters.flushes()).isGreaterThan(rounds);
        assertThat(fuzz.durableWrittenSectorsChecked()).isPositive();
        assertThat(backingSectorsCompared).isGreaterThan(fuzz.sectorCount() / 2);
    }
}

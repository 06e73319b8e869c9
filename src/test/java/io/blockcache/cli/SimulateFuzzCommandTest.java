package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code simulate fuzz} runs seeds, prints the summary (or one JSON object) and exits 0 when clean. */
class SimulateFuzzCommandTest {
    @Test
    void aFewSeedsPrintTheJsonSummaryTheIssueAsksFor() {
        // Proves the JSON object carries every field of the fuzz summary, counts the seeds asked for, and exit code 0.
        CliRun run = CliRun.of("simulate", "fuzz", "--seeds", "4", "--jobs", "1", "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("{\"seeds\":4,\"violations\":0,").contains("\"crashes\":")
                .contains("\"faultsInjected\":").contains("\"modesCovered\":[").contains("\"evictions\":")
                .contains("\"checkpoints\":").contains("\"ringWraps\":").contains("\"operations\":");
    }

    @Test
    void oneSeedReplaysWithASummaryLine() {
        // Proves --seed runs exactly that seed and prints the human summary line.
        CliRun run = CliRun.of("simulate", "fuzz", "--seed", "7", "--watch", "vol0:0");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("fuzz: 1 seeds, 0 violations,");
    }

    @Test
    void aBadWatchIsAClearError() {
        // Proves a malformed --watch is refused with a message naming the expected form.
        CliRun run = CliRun.of("simulate", "fuzz", "--seed", "7", "--watch", "seven");
        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err() + run.out()).contains("expected volN:SECTOR");
    }
}

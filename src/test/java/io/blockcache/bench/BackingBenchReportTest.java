package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** bench backing's table: ratios computed from the right rows, NaN for what is missing, the kill -9 column. */
class BackingBenchReportTest {
    private static final List<BackingBenchResult> RESULTS = List.of(
            new BackingBenchResult("blockcache", "randwrite4k", 30_000, 900, 0.5, true, 12.5),
            new BackingBenchResult("blockcache", "randread4k", 40_000, 700, Double.NaN, true),
            new BackingBenchResult("slow-backing", "randwrite4k", 3_000, 9_000, 0.01, true),
            new BackingBenchResult("nbdkit-cache", "randwrite4k", 20_000, 1_000, 2.0, false));

    @Test
    void ratiosAreBlockcacheOverTheOtherSetupOfTheSameWorkload() {
        // Proves the ratio picks blockcache's and the other setup's row of one workload: 30000/3000 and 30000/20000.
        assertThat(BackingBenchReport.ratio(RESULTS, "randwrite4k", "slow-backing")).isEqualTo(10.0);
        assertThat(BackingBenchReport.ratio(RESULTS, "randwrite4k", "nbdkit-cache")).isEqualTo(1.5);
        assertThat(BackingBenchReport.ratio(RESULTS, "randread4k", "nbdkit-cache")).isNaN();
    }

    @Test
    void tableSaysWhichSetupLosesDirtyDataOnKill9() {
        // Proves the table carries the crash column, the MiB blockcache wrote around the cache, and the ratio lines.
        String table = BackingBenchReport.table(RESULTS);
        assertThat(table)
                .contains("nbdkit-cache   randwrite4k       20000       1.00       2.00          -  loses dirty data")
                .contains("blockcache     randwrite4k       30000       0.90       0.50       12.5  nothing lost")
                .contains("randwrite4k: blockcache 10.0x the bare slow backing, 1.50x nbdkit's cache filter");
        assertThat(new BackingBenchResult("blockcache", "randread4k", 1, 2, Double.NaN, true).toJsonLine())
                .contains("\"cleanSeconds\":null").contains("\"aroundMiB\":null");
    }
}

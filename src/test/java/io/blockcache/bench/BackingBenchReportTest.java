package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** bench backing's table: ratios computed from the right rows, NaN for what is missing, the kill -9 column. */
class BackingBenchReportTest {
    private static final List<BackingBenchResult> RESULTS = List.of(
            new BackingBenchResult("blockcache", "parallel", "randwrite4k", 30_000, 900, 0.5, true, 12.5),
            new BackingBenchResult("blockcache", "parallel", "randread4k", 40_000, 700, Double.NaN, true),
            new BackingBenchResult("slow-backing", "parallel", "randwrite4k", 3_000, 9_000, 0.01, true),
            new BackingBenchResult("nbdkit-cache", "parallel", "randwrite4k", 20_000, 1_000, 2.0, false),
            new BackingBenchResult("blockcache", "disk", "randwrite4k", 25_000, 900, 0.5, true, 0.0),
            new BackingBenchResult("slow-backing", "disk", "randwrite4k", 250, 64_000, 0.01, true),
            new BackingBenchResult("nbdkit-cache", "disk", "randwrite4k", 10_000, 1_000, 16.0, false));

    @Test
    void ratiosAreBlockcacheOverTheOtherSetupOfTheSameWorkloadAndBacking() {
        // Proves the ratio picks blockcache's and the other setup's row of one workload over one backing.
        assertThat(BackingBenchReport.ratio(RESULTS, "parallel", "randwrite4k", "slow-backing")).isEqualTo(10.0);
        assertThat(BackingBenchReport.ratio(RESULTS, "parallel", "randwrite4k", "nbdkit-cache")).isEqualTo(1.5);
        assertThat(BackingBenchReport.ratio(RESULTS, "disk", "randwrite4k", "slow-backing")).isEqualTo(100.0);
        assertThat(BackingBenchReport.ratio(RESULTS, "disk", "randwrite4k", "nbdkit-cache")).isEqualTo(2.5);
        assertThat(BackingBenchReport.ratio(RESULTS, "parallel", "randread4k", "nbdkit-cache")).isNaN();
    }

    @Test
    void tableSaysWhichSetupLosesDirtyDataOnKill9() {
        // Proves the table carries the backing, the crash column, the MiB blockcache wrote around the cache, and the
        // ratio lines of each backing.
        String table = BackingBenchReport.table(RESULTS);
        assertThat(table)
                .contains("nbdkit-cache   parallel  randwrite4k       20000       1.00       2.00          -  "
                        + "loses dirty data")
                .contains("blockcache     parallel  randwrite4k       30000       0.90       0.50       12.5  "
                        + "nothing lost")
                .contains("randwrite4k over the parallel backing: blockcache 10.0x the bare slow backing, 1.50x"
                        + " nbdkit's cache filter")
                .contains("randwrite4k over the disk backing: blockcache 100.0x the bare slow backing, 2.50x nbdkit's"
                        + " cache filter")
                .doesNotContain("randread4k over the disk backing");
        assertThat(new BackingBenchResult("blockcache", "disk", "randread4k", 1, 2, Double.NaN, true).toJsonLine())
                .contains("\"backing\":\"disk\"").contains("\"cleanSeconds\":null").contains("\"aroundMiB\":null");
    }
}

package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The host's steal beside every bench nbd cell, and the rows it makes noisy named. */
class HostStealTest {
    @Test
    void stealIsTheEighthFigureOfTheCpuLineAsAShareOfAllTicks() {
        // Proves the parse against a real /proc/stat line (guest figures 9 and 10 are not added twice) and the share.
        HostSteal.Sample before = HostSteal.parse("cpu  3476666 2999 1795249 5999919 63133 0 347472 79807 0 0");
        HostSteal.Sample after = HostSteal.parse("cpu  3476866 2999 1795349 5999969 63133 0 347472 79857 0 0");
        assertThat(before.stealTicks()).isEqualTo(79807);
        assertThat(before.totalTicks()).isEqualTo(3476666L + 2999 + 1795249 + 5999919 + 63133 + 347472 + 79807);
        assertThat(HostSteal.percent(before, after)).isEqualTo(12.5); // 50 of 400 ticks
        assertThat(HostSteal.percent(before, before)).isNaN();
        assertThat(HostSteal.percent(null, after)).isNaN();
        assertThatThrownBy(() -> HostSteal.parse("intr 1 2 3")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thisMachineReportsSteal() {
        // Proves the bench reads the live file on Linux (where it and CI run), not a fixture.
        HostSteal.Sample first = HostSteal.sample();
        assertThat(first).isNotNull();
        assertThat(first.totalTicks()).isPositive();
    }

    @Test
    void theTableNamesTheCellsMeasuredUnderStealAndTheJsonCarriesIt() {
        NbdBenchResult stolen = new NbdBenchResult("blockcache", NbdWorkload.RANDREAD4K_MISS, 500, 2, 80, 12, 1, 7.5);
        NbdBenchResult quiet = new NbdBenchResult("nbdkit-file", NbdWorkload.RANDREAD4K_MISS, 1000, 4, 40, 9, 1, 0.4);
        String table = NbdBenchReport.table(List.of(stolen, quiet));
        assertThat(table).contains("measured while the host stole more than 5 % of the CPU")
                .contains("randread4k-miss on blockcache").doesNotContain("randread4k-miss on nbdkit-file");
        assertThat(stolen.toJsonLine()).endsWith(",\"stealPercent\":7.5}");
        assertThat(NbdBenchReport.table(List.of(quiet))).doesNotContain("measured while the host stole");
        List<NbdBenchMedian> medians = NbdBenchMedian.of(List.of(List.of(stolen, quiet), List.of(quiet)));
        assertThat(medians.get(0).stealPercentMax()).isEqualTo(7.5);
        assertThat(medians.get(1).toJsonLine()).contains("\"stealPercentMax\":0.400");
    }
}

package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NbdBenchReportTest {
    /** The shape of fio 3.33's JSON for one nbd job, cut down to what matters (values made up). */
    private static final String FIO_OUTPUT = """
            fio: connected to NBD server
            {
              "fio version" : "fio-3.33",
              "jobs" : [ {
                  "jobname" : "randwrite4k",
                  "job options" : { "rw" : "randwrite", "name" : "x{y" },
                  "read" : { "io_bytes" : 0, "bw_bytes" : 0, "iops" : 0.000000, "total_ios" : 0,
                    "clat_ns" : { "percentile" : { "99.000000" : 0 } } },
                  "write" : { "io_bytes" : 4096, "bw_bytes" : 104857600, "iops_min" : 3, "iops" : 25600.5,
                    "total_ios" : 256005,
                    "slat_ns" : { "min" : 0 },
                    "clat_ns" : { "min" : 1, "percentile" : { "50.000000" : 1000, "99.000000" : 2500000 } },
                    "lat_ns" : { "min" : 1 } },
                  "trim" : { "iops" : 0.000000 } } ]
            }
            """;

    @Test
    void readsIopsBandwidthAndP99FromTheRightSection() {
        // Proves the fio report is read from the workload's own section (write here, not read), skipping the
        // banner line, iops_min, and braces inside strings; p99 comes from clat and is converted to µs.
        FioJson.Section result = FioJson.parse(FIO_OUTPUT, NbdWorkload.RANDWRITE4K);
        assertThat(result.iops()).isEqualTo(25600.5);
        assertThat(result.mibPerSecond()).isEqualTo(100.0);
        assertThat(result.p99Us()).isEqualTo(2500.0);
        assertThat(result.requests()).isEqualTo(256005);
        assertThatThrownBy(() -> FioJson.parse("fio: no json", NbdWorkload.RANDREAD4K_MISS))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jsonLinesAndRatiosUseTheIssuesNamesAndNbdkitAsReference() {
        // Proves the --json line has exactly the named fields (CPU per request null when unknown, RSS in MiB) and
        // that ratios divide by nbdkit-file's IOPS for the same workload (NaN when nbdkit has no result for it).
        NbdBenchResult ours = new NbdBenchResult("blockcache", NbdWorkload.RANDREAD4K_HIT64K, 500, 1.95, 80, 12.5,
                3L << 20);
        NbdBenchResult reference = new NbdBenchResult("nbdkit-file", NbdWorkload.RANDREAD4K_HIT64K, 1000, 3.9, 40,
                Double.NaN, 1L << 20);
        NbdBenchResult alone = new NbdBenchResult("qemu-nbd", NbdWorkload.SEQWRITE1M, 10, 10, 9000, 1, 1);
        List<NbdBenchResult> results = List.of(ours, reference, alone);
        assertThat(ours.toJsonLine()).isEqualTo("{\"server\":\"blockcache\",\"workload\":\"randread4k-hit64k\","
                + "\"iops\":500.0,\"mibPerSecond\":1.95,\"p99Us\":80.0,\"cpuUsPerRequest\":12.50,\"peakRssMiB\":3.0,"
                + "\"stealPercent\":null}");
        assertThat(reference.toJsonLine()).contains("\"cpuUsPerRequest\":null,");
        assertThat(NbdBenchReport.ratio(results, ours)).isEqualTo(0.5);
        assertThat(NbdBenchReport.ratio(results, alone)).isNaN();
        assertThat(NbdBenchReport.table(results)).contains("0.50x").contains("1.00x");
    }

    @Test
    void chartLabelsAreShortAndDistinct() {
        // Proves every row gets its own x-axis label, short enough (<= 9 characters) that nine do not overlap.
        java.util.Set<String> labels = new java.util.HashSet<>();
        for (NbdWorkload workload : NbdWorkload.values()) {
            String label = NbdBenchReport.chartLabel(workload);
            assertThat(label.length()).as(label).isLessThanOrEqualTo(9);
            labels.add(label);
        }
        assertThat(labels).hasSize(NbdWorkload.values().length);
    }

    @Test
    void theMedianOfRunsTakesEachRatioWithinItsRunAndJudgesTheIssuesGoal() {
        // Proves --runs N reports the median of per-run ratios, not the ratio of median IOPS: nbdkit swings between
        // runs, so only cells of one run compare. Run IOPS (blockcache / nbdkit): 110/100, 100/200, 300/250 -> ratios
        // 1.1, 0.5, 1.2 -> median 1.1 (the ratio of the medians, 110/200, would be 0.55). The miss row misses its
        // goal on p99 alone (median p99 ratio 2.0 > 1.5), the random-write row meets its looser one (0.8x, CPU 2x).
        NbdWorkload miss = NbdWorkload.RANDREAD4K_MISS;
        NbdWorkload writes = NbdWorkload.RANDWRITE4K;
        List<List<NbdBenchResult>> runs = List.of(
                List.of(cell("blockcache", miss, 110, 20, 10), cell("nbdkit-file", miss, 100, 10, 10),
                        cell("blockcache", writes, 85, 10, 19), cell("nbdkit-file", writes, 100, 10, 10)),
                List.of(cell("blockcache", miss, 100, 20, 10), cell("nbdkit-file", miss, 200, 10, 10),
                        cell("blockcache", writes, 80, 10, 20), cell("nbdkit-file", writes, 100, 10, 10)),
                List.of(cell("blockcache", miss, 300, 20, 10), cell("nbdkit-file", miss, 250, 10, 10),
                        cell("blockcache", writes, 70, 10, 21), cell("nbdkit-file", writes, 100, 10, 10)));
        List<NbdBenchMedian> medians = NbdBenchMedian.of(runs);
        NbdBenchMedian missMedian = medians.get(0);
        assertThat(missMedian.iopsRatio()).isEqualTo(1.1);
        assertThat(missMedian.iops()).isEqualTo(110);
        assertThat(missMedian.p99Ratio()).isEqualTo(2.0);
        assertThat(missMedian.meetsGoal()).isFalse();
        NbdBenchMedian writeMedian = medians.get(2);
        assertThat(writeMedian.iopsRatio()).isEqualTo(0.8);
        assertThat(writeMedian.cpuRatio()).isEqualTo(2.0);
        assertThat(writeMedian.meetsGoal()).isTrue();
        assertThat(writeMedian.toJsonLine()).startsWith("{\"run\":\"median\",\"runs\":3,\"server\":\"blockcache\"")
                .contains("\"iopsRatio\":0.800,").endsWith(",\"goalMet\":true}");
        assertThat(medians.get(1).toJsonLine()).doesNotContain("goalMet"); // nbdkit has no goal
        String table = NbdBenchReport.medianTable(medians);
        assertThat(table).contains("median of 3 runs").contains("NOT met >= 1.0x, CPU <= 1.5x, p99 <= 1.5x")
                .contains("met     >= 0.8x, CPU <= 2.0x").contains("goals met by blockcache's medians: 1 of 2 rows");
        assertThat(runs.get(0).get(0).toJsonLine(1)).startsWith("{\"run\":1,\"server\":\"blockcache\",");
    }

    @Test
    void anEvenNumberOfRunsTakesTheMiddleTwoAndAMissingReferenceMeetsNoGoal() {
        // Proves the even-count median is the mean of the middle two, and that a row without nbdkit's cell (NaN
        // ratio) is never counted as met, nor is a row whose peak RSS passed 256 MiB.
        NbdWorkload hits = NbdWorkload.RANDREAD4K_HIT4K;
        List<List<NbdBenchResult>> runs = List.of(
                List.of(cell("blockcache", hits, 100, 10, 10), cell("nbdkit-file", hits, 100, 10, 10)),
                List.of(cell("blockcache", hits, 200, 10, 10), cell("nbdkit-file", hits, 100, 10, 10)));
        NbdBenchMedian median = NbdBenchMedian.of(runs).get(0);
        assertThat(median.iopsRatio()).isEqualTo(1.5);
        assertThat(median.meetsGoal()).isTrue();
        NbdBenchMedian alone = NbdBenchMedian.of(List.of(List.of(cell("blockcache", hits, 100, 10, 10)))).get(0);
        assertThat(alone.iopsRatio()).isNaN();
        assertThat(alone.meetsGoal()).isFalse();
        NbdBenchResult big = new NbdBenchResult("blockcache", hits, 200, 1, 10, 10, 257L << 20);
        assertThat(NbdBenchMedian.of(List.of(List.of(big, cell("nbdkit-file", hits, 100, 10, 10)))).get(0)
                .meetsGoal()).isFalse();
    }

    private static NbdBenchResult cell(String server, NbdWorkload workload, double iops, double p99Us, double cpuUs) {
        return new NbdBenchResult(server, workload, iops, iops / 256, p99Us, cpuUs, 200L << 20);
    }
}

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
                + "\"iops\":500.0,\"mibPerSecond\":1.95,\"p99Us\":80.0,\"cpuUsPerRequest\":12.50,\"peakRssMiB\":3.0}");
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
}

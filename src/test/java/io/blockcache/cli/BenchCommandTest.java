package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchCommandTest {
    @Test
    void benchIsAParentCommandWithNbdAndItsOptions() {
        // Proves `bench` is registered and lists `nbd`, and `bench nbd --help` documents --json and --quick
        // (without running the benchmark).
        CliRun bench = CliRun.of("bench");
        assertThat(bench.exitCode()).isZero();
        assertThat(bench.out()).contains("nbd");
        CliRun help = CliRun.of("bench", "nbd", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--json").contains("--quick").contains("nbdkit");
    }
}

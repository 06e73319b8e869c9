package io.blockcache.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache bench ...}: benchmarks that measure and print results (tables, JSON lines, PNG charts).
 * One subcommand per benchmark.
 */
@Command(name = "bench", description = "Run a benchmark and print its results (tables, JSON lines, PNG charts).",
        mixinStandardHelpOptions = true, subcommands = {
            BenchNbdCommand.class,
            BenchWritebackCommand.class,
            BenchGcCommand.class,
            BenchRecoveryCommand.class,
            BenchBackingCommand.class,
            BenchHitRatioCommand.class,
        })
final class BenchCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}

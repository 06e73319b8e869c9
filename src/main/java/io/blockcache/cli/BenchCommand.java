package io.blockcache.cli;

import picocli.CommandLine.Command;

/** {@code blockcache bench ...}: benchmarks that print tables and draw charts. One subcommand per benchmark. */
@Command(name = "bench", description = "Run benchmarks (tables, JSON lines, PNG charts).",
        mixinStandardHelpOptions = true, subcommands = {BenchWritebackCommand.class})
final class BenchCommand implements Runnable {
    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

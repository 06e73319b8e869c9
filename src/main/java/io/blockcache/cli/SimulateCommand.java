package io.blockcache.cli;

import picocli.CommandLine.Command;

/** {@code blockcache simulate ...}: runs experiments in simulated time. One subcommand per experiment. */
@Command(name = "simulate", description = "Run the device models and scenarios in simulated time.",
        mixinStandardHelpOptions = true, subcommands = {SimulateDevicesCommand.class, SimulateFuzzCommand.class})
final class SimulateCommand implements Runnable {
    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

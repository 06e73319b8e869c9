package io.blockcache.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code bin/blockcache}: dispatches to one subcommand class per verb.
 *
 * <p>Exit codes: 0 success, 1 the operation failed, 2 bad usage (picocli's convention).
 */
@Command(
        name = "blockcache",
        mixinStandardHelpOptions = true,
        version = "blockcache 0.1.0",
        description = "A write-back block cache served over NBD.",
        subcommands = {FormatCommand.class, CheckCommand.class, SalvageCommand.class, ReplayLogCommand.class,
                ServeCommand.class,
                StatsCommand.class, DrainCommand.class, GetCommand.class, SetCommand.class, ReloadCommand.class,
                SimulateCommand.class, BenchCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; for tests. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line of every command, with bad usage reported in one line ({@link OptionErrors}). */
    static CommandLine commandLine() {
        return new CommandLine(new Main()).setParameterExceptionHandler(new OptionErrors());
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

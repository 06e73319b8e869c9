package io.blockcache.cli;

import java.util.List;
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
        description = "A write-back block cache served over NBD.")
public final class Main implements Runnable {
    /** Every subcommand, in the order {@code --help} lists them ({@link #command} makes each). */
    static final List<String> COMMANDS = List.of("format", "check", "salvage", "replay-log", "serve", "stats", "drain",
            "prefetch", "pin", "unpin", "volume", "get", "set", "reload", "cluster", "simulate", "bench", "help");

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        LibraryLog.select();
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; for tests. */
    public static int run(String... args) {
        return commandLine(args).execute(args);
    }

    /**
     * The command line for {@code args}, with bad usage reported in one line ({@link OptionErrors}). When the first
     * argument names a command, only that command's model is built: picocli builds every subcommand's model (each
     * option, converter and type) before it parses, and a client command such as {@code stats} runs in a small JVM
     * where building {@code serve}'s 30-odd typed options was a measurable part of its start-up. Otherwise (no
     * command, {@code help}, a typo that gets suggestions) every command is there.
     */
    public static CommandLine commandLine(String... args) {
        CommandLine line = new CommandLine(new Main());
        String first = args.length > 0 ? args[0] : "";
        boolean one = COMMANDS.contains(first) && !first.equals("help");
        for (String name : one ? List.of(first) : COMMANDS) {
            line.addSubcommand(command(name));
        }
        return line.setParameterExceptionHandler(new OptionErrors());
    }

    /** A new instance of the command {@code name} (one of {@link #COMMANDS}). */
    static Object command(String name) {
        return switch (name) {
            case "format" -> new FormatCommand();
            case "check" -> new CheckCommand();
            case "salvage" -> new SalvageCommand();
            case "replay-log" -> new ReplayLogCommand();
            case "serve" -> new ServeCommand();
            case "stats" -> new StatsCommand();
            case "drain" -> new DrainCommand();
            case "prefetch" -> new PrefetchCommand();
            case "pin" -> new PinCommand();
            case "unpin" -> new UnpinCommand();
            case "volume" -> new VolumeCommand();
            case "get" -> new GetCommand();
            case "set" -> new SetCommand();
            case "reload" -> new ReloadCommand();
            case "cluster" -> new ClusterCommand();
            case "simulate" -> new SimulateCommand();
            case "bench" -> new BenchCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException("no command " + name);
        };
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

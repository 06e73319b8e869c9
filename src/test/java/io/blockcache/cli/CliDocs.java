package io.blockcache.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Writes docs/CLI.md from the picocli model of every command ({@link Main#COMMANDS}, each made by
 * {@link Main#command}): per command and subcommand its description, its positional parameters and a table of its
 * options (names, parameter label, description, default, and for a command that reads {@code --config} the config
 * key). {@code CliDocsTest} checks the file is what this writes; {@code -Dblockcache.writeCliDocs=true} rewrites it.
 * A {@code main} prints it, for a look without the test.
 */
final class CliDocs {
    /** The file this generates, from the repository's root. */
    static final String PATH = "docs/CLI.md";

    private CliDocs() {
    }

    /** Prints the generated document on stdout. */
    public static void main(String[] args) {
        System.out.print(generate());
    }

    /** The whole document. */
    static String generate() {
        StringBuilder out = new StringBuilder();
        out.append("# Command line reference\n\n")
                .append("<!-- Generated from the picocli model by src/test/java/io/blockcache/cli/CliDocs.java;"
                        + " do not edit. After changing an option, run:\n")
                .append("     ./mvnw -B -q test -Dtest=CliDocsTest -Dblockcache.writeCliDocs=true -->\n\n")
                .append("Every command of `bin/blockcache`, with each option's parameter, description and default.")
                .append(" Every command also takes `-h`/`--help` and `-V`/`--version`. Exit codes: 0 success, 1 the")
                .append(" operation failed, 2 bad usage (unless a command says otherwise). Sizes take units (`8M`,")
                .append(" `1G`), durations too (`30s`, `1h30m`). For `serve`, the config key column is where the")
                .append(" option lives in the `--config` file (a flag wins over the file, the file over the default;")
                .append(" docs/OPERATIONS.md §1).\n\n");
        List<CommandSpec> commands = new ArrayList<>();
        for (String name : Main.COMMANDS) {
            if (!name.equals("help")) {
                collect(Main.commandLine(name).getSubcommands().get(name).getCommandSpec(), commands);
            }
        }
        for (CommandSpec command : commands) {
            out.append("- [`").append(path(command)).append("`](#").append(anchor(command)).append(")\n");
        }
        for (CommandSpec command : commands) {
            out.append('\n');
            section(command, out);
        }
        return out.toString();
    }

    private static void collect(CommandSpec command, List<CommandSpec> into) {
        into.add(command);
        for (CommandLine sub : command.subcommands().values()) {
            if (!(sub.getCommand() instanceof CommandLine.HelpCommand) && !into.contains(sub.getCommandSpec())) {
                collect(sub.getCommandSpec(), into);
            }
        }
    }

    private static void section(CommandSpec command, StringBuilder out) {
        out.append("## ").append(path(command)).append("\n\n");
        out.append("```\n").append(synopsis(command)).append("\n```\n\n");
        for (String line : command.usageMessage().description()) {
            out.append(unescaped(line)).append('\n');
        }
        out.append('\n');
        if (!command.subcommands().isEmpty()) {
            List<String> subs = new ArrayList<>();
            command.subcommands().forEach((name, sub) -> {
                if (!(sub.getCommand() instanceof CommandLine.HelpCommand) && name.equals(sub.getCommandName())) {
                    subs.add("`" + name + "`");
                }
            });
            out.append("Subcommands: ").append(String.join(", ", subs)).append(".\n\n");
        }
        for (PositionalParamSpec positional : command.positionalParameters()) {
            if (positional.hidden()) {
                continue;
            }
            out.append("- `").append(positional.paramLabel()).append("`: ")
                    .append(cell(String.join(" ", positional.renderedDescription()))).append('\n');
        }
        if (!command.positionalParameters().isEmpty()) {
            out.append('\n');
        }
        List<OptionSpec> options = command.options().stream()
                .filter(o -> !o.hidden() && !o.usageHelp() && !o.versionHelp()).toList();
        if (options.isEmpty()) {
            return;
        }
        boolean configured = command.findOption(ConfigDefaults.OPTION) != null;
        out.append(configured ? "| option | parameter | description | default | config key |\n|---|---|---|---|---|\n"
                : "| option | parameter | description | default |\n|---|---|---|---|\n");
        for (OptionSpec option : options) {
            out.append("| `").append(String.join("`, `", option.names())).append("` | ")
                    .append(option.arity().max() == 0 ? "" : "`" + option.paramLabel() + "`").append(" | ")
                    .append(cell(String.join(" ", option.description()).replace("${DEFAULT-VALUE}",
                            String.valueOf(option.defaultValue()))))
                    .append(" | ").append(option.defaultValue() == null ? "" : "`" + option.defaultValue() + "`");
            if (configured) {
                String key = ConfigDefaults.key(option);
                out.append(" | ").append(key == null ? "(flag only)" : "`" + key + "`");
            }
            out.append(" |\n");
        }
    }

    /** The command's usage line, as {@code --help} prints it but without wrapping. */
    private static String synopsis(CommandSpec command) {
        command.usageMessage().width(10_000);
        String text = new CommandLine.Help(command, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .synopsis(0);
        return text.strip().replaceAll(" {2,}", " ");
    }

    /** The command's name after {@code blockcache}: {@code drain pause}. */
    private static String path(CommandSpec command) {
        String qualified = command.qualifiedName(" ");
        return qualified.substring(qualified.indexOf(' ') + 1);
    }

    /** GitHub's anchor of a heading: lower case, spaces as dashes, other punctuation dropped. */
    private static String anchor(CommandSpec command) {
        return path(command).toLowerCase().replaceAll("[^a-z0-9 -]", "").replace(' ', '-');
    }

    /** Text that fits in one table cell. */
    private static String cell(String text) {
        return unescaped(text).replace("|", "\\|").replace("\n", " ").strip();
    }

    /** A description as picocli's help prints it: {@code %%} is a percent sign there (its text is a format). */
    private static String unescaped(String text) {
        return text.replace("%%", "%");
    }
}

package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** docs/CLI.md is generated from the picocli model ({@link CliDocs}), so it cannot fall behind the options. */
class CliDocsTest {
    /** Rewrites docs/CLI.md instead of failing: {@code -Dblockcache.writeCliDocs=true}. */
    private static final boolean WRITE_DOCS = Boolean.getBoolean("blockcache.writeCliDocs");

    @Test
    void theReferenceIsTheGeneratedOne() throws IOException {
        // Proves docs/CLI.md is exactly what CliDocs generates now: a renamed option, a new one or a changed default
        // or description makes it stale and fails here; -Dblockcache.writeCliDocs=true rewrites it.
        Path path = Path.of(CliDocs.PATH);
        String generated = CliDocs.generate();
        if (WRITE_DOCS) {
            Files.writeString(path, generated);
        }
        assertThat(Files.readString(path)).as(CliDocs.PATH + " is stale: run CliDocsTest with"
                + " -Dblockcache.writeCliDocs=true to regenerate").isEqualTo(generated);
    }

    @Test
    void everyCommandAndOptionIsInTheReference() {
        // Proves the generator leaves nothing out: every command, subcommand and visible option of the model (here
        // walked independently of CliDocs) appears in the generated text, with each option's default.
        String generated = CliDocs.generate();
        int options = 0;
        for (String name : Main.COMMANDS) {
            if (name.equals("help")) {
                continue;
            }
            options += check(Main.commandLine(name).getSubcommands().get(name).getCommandSpec(), generated);
        }
        assertThat(options).as("options seen").isGreaterThan(50);
        assertThat(generated).contains("## serve\n", "## drain pause\n", "## bench nbd\n", "## simulate fuzz\n",
                "`--cache-size` | `SIZE` |", "`1G`", "`cache-size` |", "| `--force` | ");
    }

    private static int check(CommandSpec command, String generated) {
        String qualified = command.qualifiedName(" ");
        assertThat(generated).contains("## " + qualified.substring(qualified.indexOf(' ') + 1) + "\n");
        int count = 0;
        for (OptionSpec option : command.options()) {
            if (option.hidden() || option.usageHelp() || option.versionHelp()) {
                continue;
            }
            count++;
            String row = "| `" + String.join("`, `", option.names()) + "` | ";
            assertThat(generated).contains(row);
            if (option.defaultValue() != null) {
                assertThat(generated).contains("`" + option.defaultValue() + "`");
            }
        }
        for (CommandLine sub : command.subcommands().values()) {
            if (!(sub.getCommand() instanceof CommandLine.HelpCommand)) {
                count += check(sub.getCommandSpec(), generated);
            }
        }
        return count;
    }
}

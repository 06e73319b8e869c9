package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code blockcache}'s command table: every command is reachable, and a client command's line builds only itself. */
class MainTest {
    @Test
    void eachCommandNameMakesThatCommandAndACommandLineForOneHoldsItAlone() {
        // Proves Main.COMMANDS and Main.command agree with each command's own name, that the full line (no
        // arguments, help, a typo) has every command, and that "stats ..." builds the stats command only.
        for (String name : Main.COMMANDS) {
            assertThat(new CommandLine(Main.command(name)).getCommandName()).as(name).isEqualTo(name);
        }
        assertThat(Main.commandLine().getSubcommands().keySet()).containsExactlyElementsOf(Main.COMMANDS);
        assertThat(Main.commandLine("help", "serve").getSubcommands().keySet())
                .containsExactlyElementsOf(Main.COMMANDS);
        assertThat(Main.commandLine("stast").getSubcommands().keySet()).containsExactlyElementsOf(Main.COMMANDS);
        assertThat(Main.commandLine("stats", "--json").getSubcommands().keySet()).containsExactly("stats");
        CliRun usage = CliRun.of("--help");
        assertThat(usage.out()).contains("serve").contains("stats").contains("replay-log");
    }
}

package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * The bash completion script and the man pages the packaging installs (docs/OPERATIONS.md "Install") are generated
 * from the picocli model, with picocli's own generators ({@link AutoComplete}, {@link ManPageGenerator}), so they
 * cannot fall behind the options. {@code -Dblockcache.writeShellFiles=true} rewrites them (the man pages' troff with
 * Debian's {@code asciidoctor}, which only that rewrite needs).
 */
class ShellPackagingTest {
    private static final boolean WRITE = Boolean.getBoolean("blockcache.writeShellFiles");
    private static final Path COMPLETION = Path.of("packaging/completion/blockcache.bash");
    private static final Path MAN = Path.of("packaging/man");

    @TempDir
    Path temp;

    @Test
    void theCompletionScriptIsTheGeneratedOne() throws IOException {
        // Proves packaging/completion/blockcache.bash is what picocli generates from today's commands and options.
        String generated = AutoComplete.bash("blockcache", Main.commandLine());
        if (WRITE) {
            Files.writeString(COMPLETION, generated);
        }
        assertThat(Files.readString(COMPLETION)).as(COMPLETION + " is stale: run ShellPackagingTest with"
                + " -Dblockcache.writeShellFiles=true").isEqualTo(generated);
    }

    @Test
    void bashCompletesCommandsAndTheirOptions() throws Exception {
        // Proves the script works in bash: a command prefix completes to the commands, and an option prefix of serve
        // to serve's options.
        assertThat(complete("blockcache", "s")).contains("salvage", "serve", "stats", "set", "simulate")
                .doesNotContain("format");
        assertThat(complete("blockcache", "serve", "--cache-s")).containsExactly("--cache-size");
        assertThat(complete("blockcache", "drain", "")).contains("status", "pause", "resume", "cancel");
    }

    private List<String> complete(String... words) throws Exception {
        StringBuilder array = new StringBuilder();
        for (String word : words) {
            array.append(" '").append(word).append('\'');
        }
        String script = "source " + COMPLETION.toAbsolutePath() + "\nCOMP_WORDS=(" + array + ")\nCOMP_CWORD="
                + (words.length - 1) + "\nCOMP_LINE=\"${COMP_WORDS[*]}\"\nCOMP_POINT=${#COMP_LINE}\n"
                + "_complete_blockcache blockcache \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        // stderr dropped: compopt, which the script calls, complains outside a real completion.
        Process bash = new ProcessBuilder("bash", "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(out).isZero();
        return out.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    @Test
    void theManPagesAreTheGeneratedOnes() throws IOException, InterruptedException {
        // Proves packaging/man holds one page per command and subcommand, each the AsciiDoc picocli generates now,
        // with its troff rendering beside it naming every option of the command.
        CommandLine line = Main.commandLine();
        assertThat(ManPageGenerator.generateManPage(temp.toFile(), null, new boolean[0], true,
                line.getCommandSpec())).isZero();
        TreeMap<String, String> generated = new TreeMap<>();
        try (Stream<Path> files = Files.list(temp)) {
            for (Path file : files.toList()) {
                generated.put(file.getFileName().toString(), Files.readString(file));
            }
        }
        if (WRITE) {
            writeManPages(generated);
        }
        TreeMap<String, String> shipped = new TreeMap<>();
        try (Stream<Path> files = Files.list(MAN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".adoc")).toList()) {
                shipped.put(file.getFileName().toString(), Files.readString(file));
            }
        }
        assertThat(shipped).as(MAN + " is stale: run ShellPackagingTest with -Dblockcache.writeShellFiles=true")
                .isEqualTo(generated);
        List<CommandSpec> commands = new ArrayList<>();
        collect(line.getCommandSpec(), commands);
        assertThat(commands).hasSizeGreaterThan(20);
        for (CommandSpec command : commands) {
            Path troff = MAN.resolve(command.qualifiedName("-") + ".1");
            assertThat(troff).exists();
            String page = Files.readString(troff);
            assertThat(page).contains(".TH \"" + command.qualifiedName("-").toUpperCase(java.util.Locale.ROOT)
                    .replace("-", "\\-") + "\"");
            for (OptionSpec option : command.options()) {
                if (!option.hidden()) {
                    assertThat(page).as(troff + " names " + option.longestName())
                            .contains(option.longestName().replace("-", "\\-"));
                }
            }
        }
    }

    private static void collect(CommandSpec command, List<CommandSpec> into) {
        if (command.userObject() instanceof CommandLine.HelpCommand) {
            return;
        }
        into.add(command);
        command.subcommands().values().forEach(sub -> collect(sub.getCommandSpec(), into));
    }

    private void writeManPages(TreeMap<String, String> generated) throws IOException, InterruptedException {
        try (Stream<Path> old = Files.list(MAN)) {
            for (Path file : old.toList()) {
                Files.delete(file);
            }
        }
        for (var page : generated.entrySet()) {
            Path adoc = MAN.resolve(page.getKey());
            Files.writeString(adoc, page.getValue());
            Process asciidoctor = new ProcessBuilder("asciidoctor", "-b", "manpage", "-a", "reproducible",
                    "-D", MAN.toString(), adoc.toString()).inheritIO().start();
            assertThat(asciidoctor.waitFor(60, TimeUnit.SECONDS) && asciidoctor.exitValue() == 0)
                    .as("asciidoctor rendered " + adoc).isTrue();
        }
    }
}

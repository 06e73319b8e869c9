package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/OPERATIONS.md §10 "Exposing a volume securely" shows commands an operator will copy: every {@code serve}
 * command and the config file there must pass {@code serve}'s whole validation (flags, credentials, token file,
 * allow-lists, the {@code --allow-remote} rule). Runs them with {@code --print-jvm-options}, which resolves the
 * settings and exits before opening anything, with the /etc paths pointed at files made here.
 */
class SecureExampleTest {
    private static final Pattern CODE_BLOCK = Pattern.compile("```(sh|properties)\\n(.*?)```", Pattern.DOTALL);

    @TempDir
    Path dir;

    @Test
    void theServeCommandsAndConfigOfTheWalkThroughAreAccepted() throws Exception {
        // Proves each example in §10 starts (settings-wise) once its files exist, and fails if one is missing.
        String doc = Files.readString(Path.of("docs/OPERATIONS.md"));
        String section = doc.substring(doc.indexOf("## 10. Exposing a volume securely"));
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "ab".repeat(32) + "\nbob:" + "cd".repeat(32)
                + "\n");
        Path token = AccessSettingsTest.tokenFile(dir, "0123456789abcdef0123456789abcdef");
        TestPki pki = new TestPki("example CA");
        Path tls = pki.writeServerFiles(dir.resolve("tls"), pki.server());
        List<List<String>> commands = new ArrayList<>();
        List<String> configs = new ArrayList<>();
        Matcher block = CODE_BLOCK.matcher(section);
        while (block.find()) {
            String text = block.group(2).replace("/etc/blockcache/keys.psk", keys.toString())
                    .replace("/etc/blockcache/admin.token", token.toString())
                    .replace("/etc/blockcache/tls", tls.toString());
            if (block.group(1).equals("properties")) {
                configs.add(text);
                continue;
            }
            for (String line : text.replace("\\\n", " ").split("\n")) {
                if (line.startsWith("bin/blockcache serve ")) {
                    List<String> args = new ArrayList<>(Arrays.asList(line.substring("bin/blockcache ".length())
                            .split("#")[0].trim().split("\\s+")));
                    commands.add(args);
                }
            }
        }
        assertThat(commands).as("serve commands in §10").hasSize(2);
        assertThat(configs).as("config files in §10").hasSize(1);
        for (List<String> command : commands) {
            command.add("--print-jvm-options");
            CliRun run = CliRun.of(command.toArray(String[]::new));
            assertThat(run.exitCode()).as(command + ": " + run.err()).isZero();
        }
        Path config = Files.writeString(dir.resolve("blockcache.conf"), configs.get(0));
        CliRun run = CliRun.of("serve", "--config", config.toString(), "--print-jvm-options");
        assertThat(run.exitCode()).as(run.err()).isZero();

        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-rw-r--"));
        CliRun open = CliRun.of("serve", "--config", config.toString(), "--print-jvm-options");
        assertThat(open.exitCode()).isEqualTo(2);
        assertThat(open.err()).contains("are too open").hasLineCount(1);
    }
}

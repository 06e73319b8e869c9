package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code serve}'s options through {@link ConfigDefaults}: every option is a config key and every key an option, and
 * for each kind of value the flag wins over the file, which wins over the default.
 */
class ServeOptionsTest {
    /**
     * The config keys serve took before its options were typed (2026-12-07), plus {@code s3-retry-time} which was a
     * key only and is now a flag too, and the replication group's {@code node-id} and {@code peers}: a key dropped or
     * renamed would break an operator's file.
     */
    private static final Set<String> KEYS = Set.of("data-dir", "cache", "backing", "cache-size", "backing-size",
            "nbd-listen", "admin-listen", "mode", "log-format", "allow-remote", "admin-token-file", "damage-map",
            "s3-endpoint",
            "take-over", "nbd-backing-timeout", "s3-retry-time", "nbd-handshake-timeout", "nbd-idle-timeout",
            "nbd-reply-timeout", "nbd-keepalive", "nbd-connections-max", "nbd-connections-per-address-max",
            "nbd-buffer-max", "tls", "tls-certificates", "tls-psk", "tls-verify-peer", "insecure",
            "node-id", "peers", "export.NAME.allow-addresses", "export.NAME.allow-psk-users");
    /** The flags that are never read from the file, each for its reason (ServeOptions). */
    private static final Set<String> FLAGS_ONLY = Set.of("--config", "--force", "--print-jvm-options", "--help",
            "--version");

    @TempDir
    Path dir;

    private static List<OptionSpec> serveOptions() {
        return new CommandLine(new ServeCommand()).getCommandSpec().options();
    }

    @Test
    void everyOptionIsAConfigKeyAndEveryKeyAnOption() {
        // Proves the keys derived from the options are exactly today's keys, and only the flag-only options have none.
        Set<String> keys = new TreeSet<>();
        Set<String> flagsOnly = new TreeSet<>();
        for (OptionSpec option : serveOptions()) {
            String key = ConfigDefaults.key(option);
            if (key == null) {
                flagsOnly.add(option.longestName());
            } else {
                keys.add(key);
            }
        }
        assertThat(keys).containsExactlyInAnyOrderElementsOf(KEYS);
        assertThat(flagsOnly).containsExactlyInAnyOrderElementsOf(FLAGS_ONLY);
    }

    /** A value for each option, unlike its default, by the option's type (a new type needs a line here). */
    private String sample(OptionSpec option) {
        String name = option.longestName();
        if (name.equals("--backing")) {
            return "a=" + dir.resolve("a.img");
        }
        Class<?> type = option.type();
        return switch (type.getSimpleName()) {
            case "Path" -> dir.resolve("x").toString();
            case "String" -> "sample";
            case "long", "Long" -> "3M";
            case "int" -> "7";
            case "boolean" -> "true";
            case "Duration" -> "7s";
            case "InetSocketAddress" -> "127.0.0.1:7";
            case "CacheMode" -> "none";
            case "LogFormat" -> "json";
            case "TlsMode" -> "on";
            case "DamageMapPlacement" -> "off";
            case "URI" -> "http://127.0.0.1:9";
            default -> throw new AssertionError("no sample value for " + name + " of type " + type);
        };
    }

    @Test
    void everyKeyOfTheFileSetsItsOptionAsItsFlagDoes() throws Exception {
        // Proves, option by option, that key=VALUE in the file gives the option the value --flag VALUE gives it.
        Path config = dir.resolve("serve.properties");
        int checked = 0;
        for (OptionSpec option : serveOptions()) {
            String key = ConfigDefaults.key(option);
            if (key == null || key.contains(ConfigKey.NAME)) {
                continue;
            }
            String value = sample(option);
            Files.writeString(config, key + "=" + value + "\n");
            Object fromFile = valueOf(option.longestName(), "--config", config.toString());
            Object fromFlag = valueOf(option.longestName(), option.longestName() + "=" + value);
            Object byDefault = valueOf(option.longestName());
            assertThat(fromFile).as(key).isEqualTo(fromFlag).isNotEqualTo(byDefault);
            checked++;
        }
        assertThat(checked).isEqualTo(KEYS.size() - 2); // all but the two per-export keys
    }

    /** The value picocli gives {@code optionName} when serve is parsed with {@code args}. */
    private static Object valueOf(String optionName, String... args) {
        CommandLine line = new CommandLine(new ServeCommand());
        line.parseArgs(args);
        Object value = line.getCommandSpec().findOption(optionName).getValue();
        // Named values compare by name and value; a list of them as a list.
        return value instanceof List<?> list ? new ArrayList<>(list) : value;
    }

    @Test
    void theFlagWinsOverTheFileWhichWinsOverTheDefaultForEveryKindOfValue() throws Exception {
        // Proves the precedence for a size, a duration, a duration that may be off, a count, a switch, a choice,
        // HOST:PORT, a path, a URL and a NAME=URI list: each case is default, file, and file with a flag.
        Path config = dir.resolve("serve.properties");
        String[][] cases = {
            // option, file's value, flag's value, default as the flag would give it
            {"--cache-size", "64M", "128M", "1G"},
            {"--nbd-handshake-timeout", "5s", "2m", "10s"},
            {"--nbd-idle-timeout", "30m", "off", "0"},
            {"--nbd-connections-max", "100", "50", "256"},
            {"--tls-verify-peer", "true", "false", "false"},
            {"--mode", "writethrough", "none", "writeback"},
            {"--nbd-listen", "127.0.0.1:7000", "127.0.0.1:0", "127.0.0.1:10809"},
            {"--data-dir", "/srv/bc", "/srv/other", "data"},
            {"--s3-endpoint", "http://127.0.0.1:9000", "http://127.0.0.1:9001", null},
            {"--backing", "a=/srv/a.img,b=/srv/b.img", "c=/srv/c.img", null},
        };
        for (String[] c : cases) {
            String option = c[0];
            String key = option.substring(2);
            Files.writeString(config, key + "=" + c[1] + "\n");
            Object defaultValue = c[3] == null ? null : valueOf(option, option + "=" + c[3]);
            assertThat(valueOf(option)).as(option + " by default").isEqualTo(defaultValue);
            assertThat(valueOf(option, "--config", config.toString())).as(option + " from the file")
                    .isEqualTo(valueOf(option, option + "=" + c[1])).isNotEqualTo(defaultValue);
            assertThat(valueOf(option, "--config", config.toString(), option + "=" + c[2]))
                    .as(option + " from the flag over the file").isEqualTo(valueOf(option, option + "=" + c[2]))
                    .isNotEqualTo(valueOf(option, option + "=" + c[1]));
        }
    }

    @Test
    void aPerExportListFromAFlagReplacesTheFilesListForThatExportOnly() throws Exception {
        // Proves the per-name rule: --allow-addresses b=... wins for b and leaves the file's list for a in force.
        Path config = Files.writeString(dir.resolve("serve.properties"), "export.a.allow-addresses=10.0.0.0/8\n"
                + "export.b.allow-addresses=10.1.0.0/16\n");
        ServeOptions options = ServeOptions.parse(List.of("--config", config.toString(), "--allow-addresses",
                "b=192.168.0.0/16"));
        Map<String, ConfigDefaults.Entry> lists = options.configDefaults().perName(options.spec, "--allow-addresses",
                options.allowAddresses);
        assertThat(lists).containsExactly(
                Map.entry("a", new ConfigDefaults.Entry(config + ": export.a.allow-addresses", "10.0.0.0/8")),
                Map.entry("b", new ConfigDefaults.Entry("--allow-addresses b", "192.168.0.0/16")));
    }

    @Test
    void aBadValueInTheFileNamesTheFileTheKeyTheValueAndTheCause() throws Exception {
        // Proves a value the converter refuses is reported as FILE: KEY=VALUE: cause, and as --flag: cause when typed.
        Path config = dir.resolve("serve.properties");
        Map<String, String> cases = Map.of(
                "cache-size=lots", "not a size: \"lots\"",
                "nbd-keepalive=soon", "not a duration: \"soon\"",
                "mode=fastest", "must be one of writeback, writethrough, writearound, none; got \"fastest\"",
                "nbd-listen=localhost", "must be HOST:PORT",
                "take-over=yes", "must be true or false; got \"yes\"",
                "backing=nofile", "must be NAME=URI");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Files.writeString(config, c.getKey() + "\n");
            assertThatThrownBy(() -> ServeOptions.parse(List.of("--config", config.toString())))
                    .as(c.getKey()).hasMessageStartingWith(config + ": " + c.getKey() + ": ")
                    .hasMessageContaining(c.getValue()).message().doesNotContain("\n");
        }
        assertThatThrownBy(() -> ServeOptions.parse(List.of("--cache-size", "lots")))
                .hasMessageStartingWith("--cache-size: not a size: \"lots\"");
        Files.writeString(config, "force=true\n");
        assertThatThrownBy(() -> ServeOptions.parse(List.of("--config", config.toString())))
                .hasMessageStartingWith("unknown key \"force\" in " + config);
    }

    @Test
    void aValueOfTheFileIsTakenAsWritten() throws Exception {
        // Proves picocli's ${...} expansion does not reach config values: a path with "${" stays that path.
        Path config = Files.writeString(dir.resolve("serve.properties"), "data-dir=/srv/${env:HOME}/bc\n");
        assertThat(ServeOptions.parse(List.of("--config", config.toString())).dataDir)
                .isEqualTo(Path.of("/srv/${env:HOME}/bc"));
    }

    @Test
    void badUsageIsOneLineWithTheExitCodeForUsage() {
        // Proves serve's bad values print one line (not picocli's usage text) and exit 2.
        CliRun run = CliRun.of("serve", "--cache-size", "lots");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("blockcache serve: --cache-size: not a size: \"lots\" (examples: 1G, 512M,"
                + " 128K, 4096)\n");
    }
}

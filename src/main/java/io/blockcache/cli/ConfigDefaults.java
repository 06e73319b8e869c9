package io.blockcache.cli;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Flag, then config file, then default — for every option of a command with {@code --config FILE}, in this one
 * place. picocli asks it for each option the command line did not give, after the command line is parsed (so
 * {@code --config} is known), and falls back to the option's {@code defaultValue} when it answers null; the value
 * goes through the option's converter either way ({@link Converters}).
 *
 * <p>The config file is a properties file ({@link ConfigFile}, docs/OPERATIONS.md §1): an option's key is its long
 * name without the dashes ({@code cache-size=1G}) unless {@link ConfigKey} says otherwise; a multi-value option takes
 * a comma-separated list ({@code backing=a=/srv/a.img,b=/srv/b.img}); a per-name option one key per name
 * ({@code export.a.allow-addresses=10.0.0.0/8}, {@link #perName}); {@code knob.NAME=VALUE} lines are knobs
 * ({@link #knobs}). A key no option has is refused, naming the file.
 *
 * <p>One instance per parse (picocli makes one per command line built): it reads the file once, at the first
 * question, and remembers which option it answered with which key, so that {@link OptionErrors} can name the file,
 * the key and the value when the option's converter refuses it.
 *
 * <p>Thread rule: the thread that parses the command line.
 */
final class ConfigDefaults implements IDefaultValueProvider {
    /** The option that names the config file. */
    static final String OPTION = "--config";
    /** The prefix of the knob lines, applied at start and on reload. */
    static final String KNOB_PREFIX = "knob.";

    private Path file;
    /** The file's properties once read; an empty set without {@code --config}. */
    private Properties config;
    /** {@code key=value} for each option this answered from the file. */
    private final Map<ArgSpec, String> answered = new IdentityHashMap<>();

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        String key = key(option);
        if (key == null || key.contains(ConfigKey.NAME)) {
            return null; // a flag only, or a per-name option: perName() merges those by name
        }
        String value = load(option.command()).getProperty(key);
        if (value == null) {
            return null;
        }
        answered.put(option, key + "=" + value.strip());
        // picocli expands ${...} in what a provider answers; a config value is taken as written ("$${" is "${").
        return value.strip().replace("${", "$${");
    }

    /**
     * The config key of {@code option}: {@link ConfigKey}'s, else its long name without the dashes; null for a flag
     * only ({@link ConfigKey#NONE}, {@code --config} itself, {@code --help}, {@code --version}).
     */
    static String key(OptionSpec option) {
        if (option.usageHelp() || option.versionHelp() || option.longestName().equals(OPTION)) {
            return null;
        }
        ConfigKey annotation = option.userObject() instanceof Field field ? field.getAnnotation(ConfigKey.class) : null;
        if (annotation != null) {
            return annotation.value().isEmpty() ? null : annotation.value();
        }
        return option.longestName().substring(2);
    }

    /**
     * Where the value of {@code option} came from if this gave it, for a message: {@code FILE: KEY=VALUE}; null when
     * it came from the command line or the default.
     */
    String source(ArgSpec option) {
        String line = answered.get(option);
        return line == null ? null : file + ": " + line;
    }

    /** The {@code knob.NAME=VALUE} lines, by name. */
    Map<String, String> knobs(CommandSpec command) {
        Map<String, String> knobs = new TreeMap<>();
        Properties properties = load(command);
        for (String key : properties.stringPropertyNames()) {
            if (isKnob(key)) {
                knobs.put(key.substring(KNOB_PREFIX.length()), properties.getProperty(key).strip());
            }
        }
        return knobs;
    }

    /**
     * One entry of a per-name option ({@code --allow-addresses NAME=RANGES}, key {@code export.NAME.allow-addresses}).
     *
     * @param source where it was given, for a message: {@code --allow-addresses a} or {@code FILE: export.a.allow-...}
     * @param value the text after {@code NAME=}, stripped
     */
    record Entry(String source, String value) {
    }

    /**
     * A per-name option's entries by name: the config file's, each replaced by the command line's entry for the same
     * name. By name, not as a whole: {@code --allow-addresses b=...} must not drop the file's list for export
     * {@code a}, which would open {@code a} to everyone.
     *
     * @param optionName the option, e.g. {@code --allow-addresses}
     * @param given the entries given on the command line (null: none)
     */
    Map<String, Entry> perName(CommandSpec command, String optionName, Map<String, String> given) {
        String template = key(command.findOption(optionName));
        int at = template.indexOf(ConfigKey.NAME);
        String prefix = template.substring(0, at);
        String suffix = template.substring(at + ConfigKey.NAME.length());
        Map<String, Entry> entries = new TreeMap<>();
        Properties properties = load(command);
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            String name = nameIn(key, prefix, suffix);
            if (name != null) {
                entries.put(name, new Entry(file + ": " + key, properties.getProperty(key).strip()));
            }
        }
        if (given != null) {
            given.forEach((name, value) -> entries.put(name.strip(), new Entry(optionName + " " + name.strip(),
                    value.strip())));
        }
        return entries;
    }

    /** The config file's properties, read and checked at the first call. */
    private Properties load(CommandSpec command) {
        if (config != null) {
            return config;
        }
        OptionSpec fileOption = command.findOption(OPTION);
        file = fileOption == null ? null : fileOption.getValue();
        Properties properties;
        try {
            properties = file == null ? new Properties() : ConfigFile.read(file);
        } catch (IOException e) {
            throw new ParameterException(command.commandLine(), e.getMessage(), e, fileOption, file.toString());
        }
        checkKeys(command, properties);
        config = properties;
        return config;
    }

    /** Refuses a key no option has: a typo ({@code cache-sise}) would otherwise be ignored without a word. */
    private void checkKeys(CommandSpec command, Properties properties) {
        List<String> plain = new ArrayList<>();
        List<String> perName = new ArrayList<>();
        for (OptionSpec option : command.options()) {
            String key = key(option);
            if (key != null) {
                (key.contains(ConfigKey.NAME) ? perName : plain).add(key);
            }
        }
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            boolean known = plain.contains(key) || isKnob(key) || perName.stream().anyMatch(template -> nameIn(key,
                    template.substring(0, template.indexOf(ConfigKey.NAME)),
                    template.substring(template.indexOf(ConfigKey.NAME) + ConfigKey.NAME.length())) != null);
            if (!known) {
                throw new ParameterException(command.commandLine(), "unknown key \"" + key + "\" in " + file
                        + "; known keys: " + new TreeSet<>(plain) + ", " + KNOB_PREFIX + ConfigKey.NAME
                        + (perName.isEmpty() ? "" : ", " + String.join(", ", perName)));
            }
        }
    }

    private static boolean isKnob(String key) {
        return key.startsWith(KNOB_PREFIX) && key.length() > KNOB_PREFIX.length();
    }

    /** The NAME in {@code key} if it is {@code prefix NAME suffix} with a NAME not empty, else null. */
    private static String nameIn(String key, String prefix, String suffix) {
        if (!key.startsWith(prefix) || !key.endsWith(suffix) || key.length() <= prefix.length() + suffix.length()) {
            return null;
        }
        return key.substring(prefix.length(), key.length() - suffix.length());
    }
}

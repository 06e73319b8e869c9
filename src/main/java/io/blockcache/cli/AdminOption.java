package io.blockcache.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * The {@code --admin HOST:PORT}, {@code --admin-token-file FILE} and {@code --config FILE} options of every command
 * that talks to a running server ({@code stats}, {@code get}, {@code set}, {@code drain}, {@code prefetch},
 * {@code reload}), declared once and mixed in with {@code @Mixin}. Each value comes from the flag, else its
 * environment variable, else {@code serve}'s config file ({@code admin-listen}, {@code admin-token-file}), else the
 * default.
 *
 * <p>Light on purpose: a client command runs in a small JVM, so this reads two keys of the config file with
 * {@link ConfigFile} and nothing of {@code serve}'s option machinery.
 */
final class AdminOption {
    /** The environment variable that gives {@code --admin} when the flag is not typed. */
    static final String ADDRESS_VARIABLE = "BLOCKCACHE_ADMIN";
    /** The environment variable that gives {@code --admin-token-file} when the flag is not typed. */
    static final String TOKEN_FILE_VARIABLE = "BLOCKCACHE_ADMIN_TOKEN_FILE";
    /** {@code serve}'s config keys read here. */
    static final String ADDRESS_KEY = "admin-listen";
    static final String TOKEN_FILE_KEY = AdminTokenFile.KEY;

    @Option(names = "--admin", paramLabel = "HOST:PORT",
            description = "Where the server's admin API listens (default: $" + ADDRESS_VARIABLE + ", else the --config"
                    + " file's " + ADDRESS_KEY + ", else " + AdminClient.ADDRESS_DEFAULT + ").")
    private String address;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "The file holding the server's admin token (its --admin-token-file), if it has one"
                    + " (default: $" + TOKEN_FILE_VARIABLE + ", else the --config file's " + TOKEN_FILE_KEY + ").")
    private Path tokenFile;

    @Option(names = ConfigDefaults.OPTION, paramLabel = "FILE",
            description = "The server's config file, for its " + ADDRESS_KEY + " and " + TOKEN_FILE_KEY + " where"
                    + " neither the flags nor the environment give them.")
    private Path config;

    /**
     * Where to send requests, and with which token.
     *
     * @param hostPort the admin API's address, as a client reaches it
     * @param tokenFile the token's file, or null to send none
     */
    record Target(String hostPort, Path tokenFile) {
    }

    /** These options as command-line arguments (for a command that runs another), followed by {@code more}. */
    java.util.List<String> arguments(String... more) {
        java.util.List<String> arguments = new java.util.ArrayList<>();
        if (address != null) {
            arguments.addAll(java.util.List.of("--admin", address));
        }
        if (tokenFile != null) {
            arguments.addAll(java.util.List.of("--admin-token-file", tokenFile.toString()));
        }
        if (config != null) {
            arguments.addAll(java.util.List.of(ConfigDefaults.OPTION, config.toString()));
        }
        arguments.addAll(java.util.List.of(more));
        return arguments;
    }

    /** A client for the address and token found; one whose requests fail with the reason if the config is bad. */
    AdminClient client() {
        try {
            Target target = target(address, tokenFile, config, System.getenv());
            return new AdminClient(target.hostPort(), target.tokenFile());
        } catch (IOException | IllegalArgumentException e) {
            return AdminClient.refusing(e.getMessage());
        }
    }

    /**
     * Flag, then environment variable, then config file, then default, for the address and the token file.
     *
     * @param address {@code --admin}, or null
     * @param tokenFile {@code --admin-token-file}, or null
     * @param config {@code --config}, or null; read only if a value is still missing
     * @param environment the process environment
     * @throws IOException if the config file cannot be read (the message names it and why)
     * @throws IllegalArgumentException for a bad {@code admin-listen} in it, naming the file, key and value
     */
    static Target target(String address, Path tokenFile, Path config, Map<String, String> environment)
            throws IOException {
        String hostPort = given(address, environment.get(ADDRESS_VARIABLE));
        String tokenText = given(tokenFile == null ? null : tokenFile.toString(),
                environment.get(TOKEN_FILE_VARIABLE));
        if ((hostPort == null || tokenText == null) && config != null) {
            Properties properties = ConfigFile.read(config);
            String listen = properties.getProperty(ADDRESS_KEY);
            if (hostPort == null && listen != null) {
                hostPort = reachable(config, listen.strip());
            }
            String configured = properties.getProperty(TOKEN_FILE_KEY);
            tokenText = tokenText != null ? tokenText : configured == null ? null : configured.strip();
        }
        return new Target(hostPort != null ? hostPort : AdminClient.ADDRESS_DEFAULT,
                tokenText == null || tokenText.isEmpty() ? null : Path.of(tokenText));
    }

    private static String given(String flag, String variable) {
        return flag != null ? flag : variable == null || variable.isBlank() ? null : variable.strip();
    }

    /** {@code serve}'s listen address as a client reaches it: a wildcard address is reached on loopback. */
    private static String reachable(Path config, String listen) {
        InetSocketAddress address;
        try {
            address = ListenAddress.parse(listen);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(config + ": " + ADDRESS_KEY + "=" + listen + ": " + e.getMessage());
        }
        String host = address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}

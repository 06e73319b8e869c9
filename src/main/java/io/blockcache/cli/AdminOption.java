package io.blockcache.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --admin HOST:PORT} option of every command that talks to a running server ({@code stats},
 * {@code get}, {@code set}, {@code drain}), declared once and mixed in with {@code @Mixin}.
 */
final class AdminOption {
    @Option(names = "--admin", paramLabel = "HOST:PORT", defaultValue = AdminClient.ADDRESS_DEFAULT,
            description = "Where the server's admin API listens (default: ${DEFAULT-VALUE}).")
    private String address;

    /** A client for the address given (or the default). */
    AdminClient client() {
        return new AdminClient(address);
    }
}

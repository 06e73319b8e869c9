package io.blockcache.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --admin HOST:PORT} and {@code --admin-token-file FILE} options of every command that talks to a running
 * server ({@code stats}, {@code get}, {@code set}, {@code drain}), declared once and mixed in with {@code @Mixin}.
 */
final class AdminOption {
    @Option(names = "--admin", paramLabel = "HOST:PORT", defaultValue = AdminClient.ADDRESS_DEFAULT,
            description = "Where the server's admin API listens (default: ${DEFAULT-VALUE}).")
    private String address;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "The file holding the server's admin token (its --admin-token-file), if it has one.")
    private Path tokenFile;

    /** A client for the address given (or the default), sending the token if a file was given. */
    AdminClient client() {
        return new AdminClient(address, tokenFile);
    }
}

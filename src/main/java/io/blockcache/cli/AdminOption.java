package io.blockcache.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --admin HOST:PORT} and {@code --admin-token-file FILE} options of every command that talks to a running
 * server ({@code stats}, {@code get}, {@code set}, {@code drain}), declared once and mixed in with {@code @Mixin}.
 */
final class AdminOption {
    /** The environment variable that gives {@code --admin} when the flag is not typed. */
    static final String ADDRESS_VARIABLE = "BLOCKCACHE_ADMIN";
    /** The environment variable that gives {@code --admin-token-file} when the flag is not typed. */
    static final String TOKEN_FILE_VARIABLE = "BLOCKCACHE_ADMIN_TOKEN_FILE";

    // Picocli's own lookup: the flag, else the environment variable, else the default; set once in a shell profile
    // instead of typed on every command.
    @Option(names = "--admin", paramLabel = "HOST:PORT",
            defaultValue = "${env:" + ADDRESS_VARIABLE + ":-" + AdminClient.ADDRESS_DEFAULT + "}",
            description = "Where the server's admin API listens (default: $" + ADDRESS_VARIABLE + ", else "
                    + AdminClient.ADDRESS_DEFAULT + ").")
    private String address;

    @Option(names = "--admin-token-file", paramLabel = "FILE", defaultValue = "${env:" + TOKEN_FILE_VARIABLE + "}",
            description = "The file holding the server's admin token (its --admin-token-file), if it has one"
                    + " (default: $" + TOKEN_FILE_VARIABLE + ").")
    private Path tokenFile;

    /** A client for the address given (or the default), sending the token if a file was given. */
    AdminClient client() {
        return new AdminClient(address, tokenFile);
    }
}

package io.blockcache.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code blockcache serve}: serves cached volumes over NBD.
 *
 * <p>Not built yet: NBD serving is issue #4 and needs the cache core (issue #3). Until then this says so
 * and fails, rather than pretending to serve.
 */
@Command(name = "serve", description = "Serve cached volumes over NBD (embedded default in ./data).",
        mixinStandardHelpOptions = true)
final class ServeCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("blockcache serve: not available yet in this build. The NBD server lands with issue #4"
                + " (it needs the cache core, issue #3). Try 'bin/blockcache simulate devices'.");
        return 1;
    }
}

package io.blockcache.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache unpin NAME RANGE} (docs/CACHING.md "Pinning"): asks a running server to stop pinning a volume's
 * byte range ({@code DELETE /api/volumes/NAME/pins?offset=&length=}); parts of it not pinned are ignored, and the data
 * stays cached until ordinary eviction takes it. Prints the volume's pins after the change; exit codes as
 * {@link PinCommand}.
 */
@Command(name = "unpin", mixinStandardHelpOptions = true,
        description = "Stop pinning a volume's byte range (its data stays cached until evicted as usual).")
final class UnpinCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Mixin
    private AdminOption admin;
    @Parameters(index = "0", paramLabel = "NAME", description = "The volume (its export name).")
    private String volume;
    @Parameters(index = "1", paramLabel = "RANGE", description = "OFFSET+LENGTH, e.g. 0+64M; whole 512-byte sectors.")
    private String range;
    @Option(names = "--json", description = "Print the server's JSON answer.")
    private boolean json;

    @Override
    public Integer call() {
        return PinCommand.change(spec, admin, "unpin", "DELETE", volume, range, json);
    }
}

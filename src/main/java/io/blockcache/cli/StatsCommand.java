package io.blockcache.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache stats [--json] [--admin HOST:PORT]}: the statistics of a running server, as tables
 * (volumes, cache device, backing devices) or as the admin API's raw JSON.
 */
@Command(name = "stats", description = "Show the statistics of a running server.", mixinStandardHelpOptions = true)
final class StatsCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print the raw JSON of /api/stats.")
    private boolean json;

    @Mixin
    private AdminOption admin;

    @Override
    public Integer call() {
        try {
            AdminClient.Response response = admin.client().get("/api/stats");
            if (response.status() != 200) {
                return KnobOutput.fail(spec, "stats", AdminClient.errorMessage(response));
            }
            if (json) {
                spec.commandLine().getOut().println(response.body().strip());
            } else {
                spec.commandLine().getOut().print(StatsTable.format((Map<?, ?>) JsonReader.parse(response.body())));
            }
            spec.commandLine().getOut().flush();
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "stats", e.getMessage());
        }
    }
}
